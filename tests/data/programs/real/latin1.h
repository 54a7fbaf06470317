// A header in Latin-1, as old sources are: été (gcc and nvcc read it).
#define LATIN1_OK 1
