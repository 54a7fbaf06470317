#pragma once
#include "once.h"
inline int again(Once o) { return o.x + 1; }
