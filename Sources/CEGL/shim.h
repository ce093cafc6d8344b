// EGL with the extension prototypes looked up at run time through eglGetProcAddress.
#include <EGL/egl.h>
#include <EGL/eglext.h>
