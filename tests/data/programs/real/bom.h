// A header that starts with a UTF-8 byte order mark, as some editors save files.
#define BOM_OK 1
