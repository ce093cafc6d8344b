// Core-profile GL 3.3 entry points, called directly through glvnd's libOpenGL:
// no loader needed, valid under GLX (GLFW) and EGL contexts alike.
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>
