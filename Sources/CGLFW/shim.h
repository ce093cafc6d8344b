// GLFW without its own GL header: FolioRender includes glcorearb.h itself.
#define GLFW_INCLUDE_NONE 1
#include <GLFW/glfw3.h>
