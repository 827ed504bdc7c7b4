#ifndef CSCANZBAR_SHIM_H
#define CSCANZBAR_SHIM_H
#include <zbar.h>
#endif
