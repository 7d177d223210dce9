#include "../powerpc/user_sys.h"
