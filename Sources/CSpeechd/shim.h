// speech-dispatcher's client library (libspeechd-dev): reading aloud.
#include <libspeechd.h>
