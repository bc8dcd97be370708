#include "textflag.h"

// func growStack()
//
// As growstack_amd64.s.
TEXT ·growStack(SB), 0, $12288-0
	RET
