// warpsim: the sm_61 integer intrinsics (`__dp4a`, `__dp2a_lo`, `__dp2a_hi`) are built into
// its device pass; host code has nothing to declare.
#pragma once
