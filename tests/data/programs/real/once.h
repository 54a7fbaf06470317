// Reached twice: beside habits.cu, and from once/again.h through -I (tests/programs.rs).
#pragma once
struct Once { int x; };
