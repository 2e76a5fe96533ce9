const char *a = getenv("ZT_NOT_DOCUMENTED");
#define MY_VAR "ZT_VIA_MACRO"
const char *b = secure_getenv(MY_VAR);
