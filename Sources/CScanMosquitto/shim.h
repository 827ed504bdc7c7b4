#ifndef CSCANMOSQUITTO_SHIM_H
#define CSCANMOSQUITTO_SHIM_H
// libmosquitto (Debian libmosquitto-dev): the MQTT client library behind ScanMQTT. Imported only by
// ScanMQTT, with `internal import`; one thread owns each `struct mosquitto *` (see MQTTClient).
#include <mosquitto.h>
#endif
