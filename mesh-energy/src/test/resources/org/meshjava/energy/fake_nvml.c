/*
 * A fake libnvidia-ml for mesh-energy's tests. It exports the NVML calls the meter binds (with
 * the real signatures: init, shutdown, error strings, count, handle by index, total energy, UUID,
 * PCI info v3, MIG mode) plus fake_nvml_* setters the tests call through FFM to script the
 * counter: advancing, frozen, lumpy (advancing only every Nth read), wrapping past 2^64 mJ, or
 * failing with NVML error codes. Compiled by the test with gcc -shared -fPIC. Not thread-safe;
 * the tests drive it from one thread at a time.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;

#define MAX_DEVICES 8

struct fake_device {
  unsigned int index;
};

static struct fake_device devices[MAX_DEVICES];
static int init_error;
static unsigned int device_count = 1;
static unsigned long long energy_mj[MAX_DEVICES];
static unsigned long long step_mj[MAX_DEVICES];
static unsigned int every[MAX_DEVICES];
static unsigned long long reads[MAX_DEVICES];
static int energy_error[MAX_DEVICES];
/* A board drawing power over the fake clock's time (fake_nvml_draw): 0 mW for one whose reads
   step as scripted. */
static unsigned long long drawn_mw[MAX_DEVICES];
static unsigned long long refresh_ns[MAX_DEVICES];
static unsigned long long unpublished_ns[MAX_DEVICES];
static char uuid[MAX_DEVICES][96];
static unsigned int pci_bus[MAX_DEVICES];
static int mig_mode[MAX_DEVICES]; /* -1: the board cannot do MIG (NOT_SUPPORTED) */
static unsigned int limit_max_mw[MAX_DEVICES]; /* 0: the call answers NOT_SUPPORTED */
static int initialized;
/* Scripted failures of the calls discovery makes: 0 count, 1 handle by index, 2 UUID, 3 init,
   4 power limit constraints, 5 MIG mode (of a board that can do MIG). */
#define SCRIPTED_CALLS 6
static int fail_code[SCRIPTED_CALLS];
static int fail_times[SCRIPTED_CALLS];
static int init_calls;
static int shutdown_calls;

void fake_nvml_reset(void) {
  init_error = 0;
  device_count = 1;
  initialized = 0;
  init_calls = 0;
  shutdown_calls = 0;
  for (int c = 0; c < SCRIPTED_CALLS; c++) {
    fail_code[c] = 0;
    fail_times[c] = 0;
  }
  for (unsigned int i = 0; i < MAX_DEVICES; i++) {
    devices[i].index = i;
    energy_mj[i] = 0;
    step_mj[i] = 1;
    every[i] = 1;
    reads[i] = 0;
    energy_error[i] = 0;
    drawn_mw[i] = 0;
    refresh_ns[i] = 0;
    unpublished_ns[i] = 0;
    snprintf(uuid[i], sizeof uuid[i], "GPU-%08x-0000-0000-0000-000000000000", i);
    pci_bus[i] = i;
    mig_mode[i] = -1;
    limit_max_mw[i] = 0;
  }
}

void fake_nvml_set_uuid(unsigned int device, const char *value) {
  if (device < MAX_DEVICES) snprintf(uuid[device], sizeof uuid[device], "%s", value);
}

void fake_nvml_set_pci_bus(unsigned int device, unsigned int bus) {
  if (device < MAX_DEVICES) pci_bus[device] = bus;
}

void fake_nvml_set_mig_mode(unsigned int device, int mode) {
  if (device < MAX_DEVICES) mig_mode[device] = mode;
}

void fake_nvml_set_init_error(int code) { init_error = code; }

void fake_nvml_set_power_limit_max(unsigned int device, unsigned int mw) {
  if (device < MAX_DEVICES) limit_max_mw[device] = mw;
}

/* Changes what each read adds from now on, keeping the value (script() restarts it). */
void fake_nvml_set_step(unsigned int device, unsigned long long step) {
  if (device < MAX_DEVICES) step_mj[device] = step;
}

/* The next `times` calls of discovery call `call` (0 count, 1 handle, 2 UUID, 3 init, 4 power
   limit constraints, 5 MIG mode) answer `code`; a negative `times` fails every call. */
void fake_nvml_fail_calls(int call, int code, int times) {
  if (call < 0 || call >= SCRIPTED_CALLS) return;
  fail_code[call] = code;
  fail_times[call] = times;
}

static int scripted_failure(int call) {
  if (fail_times[call] == 0) return 0;
  if (fail_times[call] > 0) fail_times[call]--;
  return fail_code[call];
}

void fake_nvml_set_device_count(unsigned int count) {
  device_count = count > MAX_DEVICES ? MAX_DEVICES : count;
}

/* Each read adds step mJ; with every > 1 the counter jumps by step * every on every Nth read
   only; every == 0 freezes it. */
void fake_nvml_script(unsigned int device, unsigned long long start, unsigned long long step,
                      unsigned int n) {
  if (device >= MAX_DEVICES) return;
  energy_mj[device] = start;
  step_mj[device] = step;
  every[device] = n;
  reads[device] = 0;
}

/* From now on the board draws mw milliwatts of the fake clock's time, told by fake_nvml_advance,
   and publishes it every period ns, as a real board refreshes its counter; reads add nothing.
   mw * period must be a whole number of mJ (a multiple of 10^9). */
void fake_nvml_draw(unsigned int device, unsigned long long mw, unsigned long long period) {
  if (device >= MAX_DEVICES || period == 0) return;
  drawn_mw[device] = mw;
  refresh_ns[device] = period;
  unpublished_ns[device] = 0;
}

/* The fake clock moved ns: each drawing board publishes every refresh that completed. */
void fake_nvml_advance(unsigned long long ns) {
  for (unsigned int i = 0; i < MAX_DEVICES; i++) {
    if (drawn_mw[i] == 0) continue;
    unpublished_ns[i] += ns;
    unsigned long long refreshes = unpublished_ns[i] / refresh_ns[i];
    unpublished_ns[i] -= refreshes * refresh_ns[i];
    energy_mj[i] += refreshes * (drawn_mw[i] * refresh_ns[i] / 1000000000ULL);
  }
}

void fake_nvml_set_energy_error(unsigned int device, int code) {
  if (device < MAX_DEVICES) energy_error[device] = code;
}

int fake_nvml_init_calls(void) { return init_calls; }
int fake_nvml_shutdown_calls(void) { return shutdown_calls; }

nvmlReturn_t nvmlInit_v2(void) {
  init_calls++;
  if (init_error != 0) return init_error;
  if (scripted_failure(3) != 0) return fail_code[3];
  initialized = 1;
  return 0;
}

nvmlReturn_t nvmlShutdown(void) {
  shutdown_calls++;
  if (!initialized) return 1;
  initialized = 0;
  return 0;
}

const char *nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 9: return "Driver Not Loaded";
    case 15: return "GPU is lost";
    default: return "Unknown Error";
  }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
  if (!initialized) return 1;
  if (count == NULL) return 2;
  if (scripted_failure(0) != 0) return fail_code[0];
  *count = device_count;
  return 0;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
  if (!initialized) return 1;
  if (device == NULL || index >= device_count) return 2;
  if (scripted_failure(1) != 0) return fail_code[1];
  *device = &devices[index];
  return 0;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy) {
  if (!initialized) return 1;
  if (device == NULL || energy == NULL) return 2;
  unsigned int i = device->index;
  if (energy_error[i] != 0) return energy_error[i];
  reads[i]++;
  if (drawn_mw[i] == 0 && every[i] != 0 && reads[i] % every[i] == 0) {
    energy_mj[i] += step_mj[i] * every[i]; /* unsigned: wraps past 2^64 like the real type */
  }
  *energy = energy_mj[i];
  return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *out, unsigned int length) {
  if (!initialized) return 1;
  if (device == NULL || out == NULL) return 2;
  if (scripted_failure(2) != 0) return fail_code[2];
  if (strlen(uuid[device->index]) + 1 > length) return 7; /* INSUFFICIENT_SIZE */
  strcpy(out, uuid[device->index]);
  return 0;
}

/* nvmlPciInfo_t: char busIdLegacy[16]; unsigned int domain, bus, device, pciDeviceId,
   pciSubSystemId; char busId[32]. */
typedef struct {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} fake_pci_info;

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, fake_pci_info *pci) {
  if (!initialized) return 1;
  if (device == NULL || pci == NULL) return 2;
  memset(pci, 0, sizeof *pci);
  pci->domain = 0;
  pci->bus = pci_bus[device->index];
  pci->device = 0;
  snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
  return 0;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current,
                                  unsigned int *pending) {
  if (!initialized) return 1;
  if (device == NULL || current == NULL || pending == NULL) return 2;
  if (mig_mode[device->index] < 0) return 3;
  if (scripted_failure(5) != 0) return fail_code[5];
  *current = (unsigned int) mig_mode[device->index];
  *pending = *current;
  return 0;
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device,
                                                          unsigned int *min_mw,
                                                          unsigned int *max_mw) {
  if (!initialized) return 1;
  if (device == NULL || min_mw == NULL || max_mw == NULL) return 2;
  if (scripted_failure(4) != 0) return fail_code[4];
  if (limit_max_mw[device->index] == 0) return 3;
  *min_mw = limit_max_mw[device->index] / 2;
  *max_mw = limit_max_mw[device->index];
  return 0;
}
