// A C++ source of a program reaching a `#pragma once` header beside it and again through -I
// (tests/programs.rs): one definition, as with nvcc.
#include <cstdio>
#include "once.h"
#include "again.h"
int main() { printf("once from C++: %d\n", again(Once{41})); }
