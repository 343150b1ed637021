/* A fake libnvidia-ml.so.1 for fixture roots. It answers from "fake-nvml.conf" in the directory
 * it was loaded from, so each fixture root carries its own GPUs and the probe's real dlopen path
 * is what the tests exercise. Lines:
 *   driver <version>
 *   init_error <nvml error code>
 *   cuda <1000*major + 10*minor>   (without it, the CUDA version call fails as without libcuda)
 *   gpu <bus id>|<name>|<uuid>|<memory bytes>|<minor>|<pci device id, 0xDDDDVVVV>
 *   mig_mode <gpu index> <current> <max MIG device count>
 *   mig <gpu index>|<MIG index>|<GI id>|<CI id>|<GI slices>|<CI slices>|<memory MiB>|<uuid>
 *   lost <gpu index>               (its queries answer GPU_IS_LOST, as after Xid 79; PCI info still answers)
 *   process <gpu index> <pid> <used bytes>   (a compute process; used bytes "-" for not available)
 *   ecc <gpu index> <volatile uncorrected count>   (without it, ECC answers NOT_SUPPORTED)
 *   remap <gpu index> <corrected> <uncorrected> <pending> <failed>   (without it, NOT_SUPPORTED)
 *   util <gpu index> <pid> <sm percent> [<age in seconds>]   (a process utilisation sample)
 *   hang <seconds>                 (nvmlInit blocks that long, as on a driver stuck with a GPU)
 *   count_inits                    (each nvmlInit appends a line to fake-nvml.inits beside it: how often it loads)
 * A MIG handle answers nvmlDeviceGetUUID and nvmlDeviceGetMemoryInfo as NVML does for MIG devices.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

typedef struct {
  char bus_id[32];
  char name[96];
  char uuid[96];
  unsigned long long memory;
  unsigned minor;
  unsigned pci_device_id;
} FakeGpu;

typedef struct {
  int is_mig;
  unsigned parent, index, gi, ci, gi_slices, ci_slices;
  unsigned long long memory_mib;
  char uuid[96];
} FakeMig;

typedef struct {
  unsigned long long total, free, used;
} Memory;

typedef struct { /* nvmlDeviceAttributes_t */
  unsigned multiprocessor_count, shared_copy_engines, shared_decoders, shared_encoders, shared_jpeg, shared_ofa;
  unsigned gpu_instance_slices, compute_instance_slices;
  unsigned long long memory_size_mb;
} Attributes;

typedef struct {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
} PciInfo;

static FakeGpu gpus[16];
static unsigned gpu_count;
static unsigned mig_current[16], mig_max[16];
static FakeMig migs[64];
static unsigned mig_count;

typedef struct { /* nvmlProcessInfo_v2_t */
  unsigned pid;
  unsigned long long used;
  unsigned gi, ci;
} ProcessInfo;

static unsigned lost[16];
static long long ecc[16];
static int remap_set[16];
static unsigned remap[16][4];
static ProcessInfo processes[16][64];
static unsigned process_count[16];

static char driver[64];
static int init_error;
static int cuda_version;

static void copy_field(char* dst, size_t size, const char* src) { snprintf(dst, size, "%s", src ? src : ""); }

static void parse_gpu(char* rest) {
  if (gpu_count >= 16) return;
  FakeGpu* g = &gpus[gpu_count++];
  char* save = NULL;
  copy_field(g->bus_id, sizeof g->bus_id, strtok_r(rest, "|", &save));
  copy_field(g->name, sizeof g->name, strtok_r(NULL, "|", &save));
  copy_field(g->uuid, sizeof g->uuid, strtok_r(NULL, "|", &save));
  const char* mem = strtok_r(NULL, "|", &save);
  const char* minor = strtok_r(NULL, "|", &save);
  const char* id = strtok_r(NULL, "|\n", &save);
  g->memory = mem ? strtoull(mem, NULL, 10) : 0;
  g->minor = minor ? (unsigned)strtoul(minor, NULL, 10) : 0;
  g->pci_device_id = id ? (unsigned)strtoul(id, NULL, 16) : 0;
}

static void parse_mig(char* rest) {
  if (mig_count >= 64) return;
  FakeMig* m = &migs[mig_count++];
  unsigned long long mib = 0;
  char uuid[96] = "";
  m->is_mig = 1;
  if (sscanf(rest, "%u|%u|%u|%u|%u|%u|%llu|%95s", &m->parent, &m->index, &m->gi, &m->ci, &m->gi_slices, &m->ci_slices,
             &mib, uuid) != 8)
    --mig_count;
  m->memory_mib = mib;
  copy_field(m->uuid, sizeof m->uuid, uuid);
}

static void parse_mig_mode(const char* rest) {
  unsigned gpu = 0, current = 0, max = 0;
  if (sscanf(rest, "%u %u %u", &gpu, &current, &max) == 3 && gpu < 16) {
    mig_current[gpu] = current;
    mig_max[gpu] = max;
  }
}

static void parse_process(const char* rest) {
  unsigned gpu = 0, pid = 0;
  char used[32] = "";
  if (sscanf(rest, "%u %u %31s", &gpu, &pid, used) != 3 || gpu >= 16 || process_count[gpu] >= 64) return;
  ProcessInfo* p = &processes[gpu][process_count[gpu]++];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  p->used = strcmp(used, "-") == 0 ? ~0ULL : strtoull(used, NULL, 10);
}

static unsigned hang_seconds;
static int count_inits;
static char inits_path[4200];
typedef struct {
  unsigned pid;
  unsigned long long timestamp;
  unsigned sm, memory, encoder, decoder;
} UtilSample;
static UtilSample util[16][64];
static unsigned util_count[16];

static void load_config(void) {
  Dl_info info;
  hang_seconds = 0;
  count_inits = 0;
  memset(util_count, 0, sizeof util_count);
  memset(lost, 0, sizeof lost);
  memset(remap_set, 0, sizeof remap_set);
  for (unsigned i = 0; i < 16; ++i) ecc[i] = -1;
  memset(process_count, 0, sizeof process_count);
  gpu_count = 0;
  mig_count = 0;
  memset(mig_current, 0, sizeof mig_current);
  memset(mig_max, 0, sizeof mig_max);
  driver[0] = '\0';
  init_error = 0;
  cuda_version = 0;
  if (!dladdr((void*)load_config, &info) || !info.dli_fname) return;
  char dir[4096];
  copy_field(dir, sizeof dir, info.dli_fname);
  char path[4200];
  const char* here = dirname(dir);
  snprintf(path, sizeof path, "%s/fake-nvml.conf", here);
  snprintf(inits_path, sizeof inits_path, "%s/fake-nvml.inits", here);
  FILE* f = fopen(path, "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "driver ", 7) == 0) copy_field(driver, sizeof driver, line + 7);
    if (strncmp(line, "init_error ", 11) == 0) init_error = atoi(line + 11);
    if (strncmp(line, "cuda ", 5) == 0) cuda_version = atoi(line + 5);
    if (strncmp(line, "gpu ", 4) == 0) parse_gpu(line + 4);
    if (strncmp(line, "mig ", 4) == 0) parse_mig(line + 4);
    if (strncmp(line, "mig_mode ", 9) == 0) parse_mig_mode(line + 9);
    if (strncmp(line, "lost ", 5) == 0 && (unsigned)atoi(line + 5) < 16) lost[atoi(line + 5)] = 1;
    if (strncmp(line, "hang ", 5) == 0) hang_seconds = (unsigned)atoi(line + 5);
    if (strcmp(line, "count_inits") == 0) count_inits = 1;
    if (strncmp(line, "util ", 5) == 0) {
      unsigned gpu = 0, pid = 0, sm = 0, age = 0;
      if (sscanf(line + 5, "%u %u %u %u", &gpu, &pid, &sm, &age) >= 3 && gpu < 16 && util_count[gpu] < 64) {
        struct timeval now;
        gettimeofday(&now, NULL);
        UtilSample* u = &util[gpu][util_count[gpu]++];
        memset(u, 0, sizeof *u);
        u->pid = pid;
        u->sm = sm;
        u->timestamp = (unsigned long long)now.tv_sec * 1000000ULL + (unsigned long long)now.tv_usec -
                       (unsigned long long)age * 1000000ULL;
      }
    }
    if (strncmp(line, "process ", 8) == 0) parse_process(line + 8);
    if (strncmp(line, "ecc ", 4) == 0) {
      unsigned gpu = 0;
      long long n = 0;
      if (sscanf(line + 4, "%u %lld", &gpu, &n) == 2 && gpu < 16) ecc[gpu] = n;
    }
    if (strncmp(line, "remap ", 6) == 0) {
      unsigned gpu = 0, v[4];
      if (sscanf(line + 6, "%u %u %u %u %u", &gpu, &v[0], &v[1], &v[2], &v[3]) == 5 && gpu < 16) {
        memcpy(remap[gpu], v, sizeof v);
        remap_set[gpu] = 1;
      }
    }
  }
  fclose(f);
}

int nvmlInit_v2(void) {
  load_config();
  if (count_inits) {
    FILE* log = fopen(inits_path, "a");
    if (log) {
      fputs("init\n", log);
      fclose(log);
    }
  }
  if (hang_seconds) sleep(hang_seconds);
  return init_error;
}
int nvmlShutdown(void) { return 0; }
int nvmlSystemGetDriverVersion(char* out, unsigned len) {
  copy_field(out, len, driver);
  return 0;
}
int nvmlSystemGetCudaDriverVersion_v2(int* version) {
  if (!cuda_version) return 12; /* LIBRARY_NOT_FOUND: no libcuda.so.1 */
  *version = cuda_version;
  return 0;
}
int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = gpu_count;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** handle) {
  if (i >= gpu_count) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  *handle = &gpus[i];
  return 0;
}
static FakeMig* as_mig(void* h) {
  FakeMig* m = (FakeMig*)h;
  return (m >= migs && m < migs + 64) ? m : NULL;
}
static unsigned gpu_index(void* h) { return (unsigned)((FakeGpu*)h - gpus); }
#define GPU_IS_LOST 15
static int is_lost(void* h) { return !as_mig(h) && lost[gpu_index(h)]; }
int nvmlDeviceGetName(void* h, char* out, unsigned len) {
  if (is_lost(h)) return GPU_IS_LOST;
  copy_field(out, len, ((FakeGpu*)h)->name);
  return 0;
}
int nvmlDeviceGetUUID(void* h, char* out, unsigned len) {
  if (is_lost(h)) return GPU_IS_LOST;
  copy_field(out, len, as_mig(h) ? as_mig(h)->uuid : ((FakeGpu*)h)->uuid);
  return 0;
}
int nvmlDeviceGetMemoryInfo(void* h, Memory* m) {
  if (is_lost(h)) return GPU_IS_LOST;
  if (as_mig(h)) {
    m->total = as_mig(h)->memory_mib * 1024ULL * 1024ULL;
    m->free = m->total;
    m->used = 0;
    return 0;
  }
  m->total = ((FakeGpu*)h)->memory;
  m->free = m->total;
  m->used = 0;
  return 0;
}
int nvmlDeviceGetPciInfo_v3(void* h, PciInfo* p) {
  FakeGpu* g = (FakeGpu*)h;
  memset(p, 0, sizeof *p);
  copy_field(p->bus_id, sizeof p->bus_id, g->bus_id);
  p->pci_device_id = g->pci_device_id;
  return 0;
}
int nvmlDeviceGetMinorNumber(void* h, unsigned* minor) {
  *minor = ((FakeGpu*)h)->minor;
  return 0;
}

/* MIG, as NVML answers for a GPU with MIG support; a GPU with no mig_mode line has none. */
int nvmlDeviceGetMigMode(void* h, unsigned* current, unsigned* pending) {
  if (as_mig(h)) return 3; /* NOT_SUPPORTED */
  unsigned i = gpu_index(h);
  if (mig_max[i] == 0 && mig_current[i] == 0) return 3; /* a GPU without MIG */
  *current = mig_current[i];
  *pending = mig_current[i];
  return 0;
}
int nvmlDeviceGetMaxMigDeviceCount(void* h, unsigned* count) {
  *count = as_mig(h) ? 0 : (mig_current[gpu_index(h)] ? mig_max[gpu_index(h)] : 0);
  return 0;
}
int nvmlDeviceGetMigDeviceHandleByIndex(void* h, unsigned index, void** out) {
  if (as_mig(h)) return 2;
  unsigned parent = gpu_index(h);
  if (index >= mig_max[parent]) return 2; /* INVALID_ARGUMENT */
  for (unsigned i = 0; i < mig_count; ++i) {
    if (migs[i].parent == parent && migs[i].index == index) {
      *out = &migs[i];
      return 0;
    }
  }
  return 6; /* NOT_FOUND: a hole, normal */
}
int nvmlDeviceGetGpuInstanceId(void* h, unsigned* id) {
  if (!as_mig(h)) return 3;
  *id = as_mig(h)->gi;
  return 0;
}
int nvmlDeviceGetComputeInstanceId(void* h, unsigned* id) {
  if (!as_mig(h)) return 3;
  *id = as_mig(h)->ci;
  return 0;
}
int nvmlDeviceGetAttributes_v2(void* h, Attributes* a) {
  if (!as_mig(h)) return 3;
  memset(a, 0, sizeof *a);
  a->gpu_instance_slices = as_mig(h)->gi_slices;
  a->compute_instance_slices = as_mig(h)->ci_slices;
  a->memory_size_mb = as_mig(h)->memory_mib;
  return 0;
}

/* Compute processes as configured; graphics ones are none. NVML's two-call protocol: a count too
 * small answers INSUFFICIENT_SIZE with the count needed. */
int nvmlDeviceGetComputeRunningProcesses_v3(void* h, unsigned* count, ProcessInfo* infos) {
  if (as_mig(h)) return 3;
  if (is_lost(h)) return GPU_IS_LOST;
  unsigned i = gpu_index(h), n = process_count[i];
  if (*count < n) {
    *count = n;
    return 7; /* INSUFFICIENT_SIZE */
  }
  memcpy(infos, processes[i], n * sizeof *infos);
  *count = n;
  return 0;
}
/* Samples newer than lastSeen, NVML's two-call protocol: a null buffer asks the count. */
int nvmlDeviceGetProcessUtilization(void* h, UtilSample* samples, unsigned* count, unsigned long long last_seen) {
  if (as_mig(h)) return 3;
  if (is_lost(h)) return GPU_IS_LOST;
  unsigned i = gpu_index(h), n = 0;
  for (unsigned k = 0; k < util_count[i]; ++k) n += util[i][k].timestamp > last_seen;
  if (n == 0) return 6; /* NOT_FOUND */
  if (!samples || *count < n) {
    *count = n;
    return 7; /* INSUFFICIENT_SIZE */
  }
  n = 0;
  for (unsigned k = 0; k < util_count[i]; ++k) {
    if (util[i][k].timestamp > last_seen) samples[n++] = util[i][k];
  }
  *count = n;
  return 0;
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(void* h, unsigned* count, ProcessInfo* infos) {
  (void)infos;
  if (as_mig(h)) return 3;
  if (is_lost(h)) return GPU_IS_LOST;
  *count = 0;
  return 0;
}

/* Memory health: NOT_SUPPORTED (3) unless the configuration names it, as on a GeForce card. */
int nvmlDeviceGetTotalEccErrors(void* h, int type, int counter, unsigned long long* count) {
  if (as_mig(h) || ecc[gpu_index(h)] < 0 || type != 1 || counter != 0) return 3;
  *count = (unsigned long long)ecc[gpu_index(h)];
  return 0;
}
int nvmlDeviceGetRemappedRows(void* h, unsigned* corrected, unsigned* uncorrected, unsigned* pending,
                              unsigned* failed) {
  if (as_mig(h) || !remap_set[gpu_index(h)]) return 3;
  *corrected = remap[gpu_index(h)][0];
  *uncorrected = remap[gpu_index(h)][1];
  *pending = remap[gpu_index(h)][2];
  *failed = remap[gpu_index(h)][3];
  return 0;
}
