/*
 * A fake of the CoreFoundation and IOReport calls mesh-energy's IoReportNative binds, with the
 * signatures the community's headers give, so the native path can run off Apple hardware. Every
 * object a Create or Copy call returns is counted; CFRelease counts releases and flags a release
 * of an object the caller does not own (a Get result) or a second release. Sample deltas carry
 * three Energy Model channels (the CPU rail's unit label is padded, as seen in the wild) and one
 * channel of another group. Compiled by the test with gcc -shared -fPIC. Not thread-safe.
 */
#include <stdlib.h>
#include <string.h>

enum kind { STRING = 1, DICTIONARY, ARRAY, SUBSCRIPTION, SAMPLE, CHANNEL };

typedef struct obj {
  int kind;
  int owned;     /* returned by a Create/Copy call: the caller must release it once */
  int refs;
  char text[64];
  struct obj *items[8];
  long count;
  long long value;
  struct obj *group, *name, *unit;
} obj;

static long created, released, bad;

static obj *internal(int kind) {
  obj *o = calloc(1, sizeof *o);
  o->kind = kind;
  return o;
}

static obj *owned(int kind) {
  obj *o = internal(kind);
  o->owned = 1;
  o->refs = 1;
  created++;
  return o;
}

static obj *text(const char *s) {
  obj *o = internal(STRING);
  strncpy(o->text, s, sizeof o->text - 1);
  return o;
}

static obj *channel(const char *group, const char *name, const char *unit, long long value) {
  obj *c = internal(CHANNEL);
  c->group = text(group);
  c->name = text(name);
  c->unit = text(unit);
  c->value = value;
  return c;
}

long fake_cf_outstanding(void) { return created - released; }
long fake_cf_bad_releases(void) { return bad; }

void fake_cf_reset(void) {
  created = 0;
  released = 0;
  bad = 0;
}

/* CoreFoundation */

obj *CFStringCreateWithCString(void *allocator, const char *s, unsigned int encoding) {
  obj *o = owned(STRING);
  strncpy(o->text, s, sizeof o->text - 1);
  return o;
}

unsigned char CFStringGetCString(obj *s, char *buffer, long size, unsigned int encoding) {
  if (s == NULL || s->kind != STRING || size <= 0) return 0;
  strncpy(buffer, s->text, (size_t) size - 1);
  buffer[size - 1] = 0;
  return 1;
}

void CFRelease(obj *o) {
  if (o == NULL || !o->owned || o->refs <= 0) {
    bad++;
    return;
  }
  o->refs--;
  released++;
}

obj *CFDictionaryGetValue(obj *dictionary, obj *key) {
  if (dictionary != NULL && dictionary->kind == SAMPLE && key != NULL
      && strcmp(key->text, "IOReportChannels") == 0) {
    return dictionary->items[0];
  }
  return NULL;
}

long CFDictionaryGetCount(obj *dictionary) { return 3; }

obj *CFDictionaryCreateMutableCopy(void *allocator, long capacity, obj *dictionary) {
  return owned(DICTIONARY);
}

long CFArrayGetCount(obj *array) { return array == NULL ? 0 : array->count; }

obj *CFArrayGetValueAtIndex(obj *array, long i) { return array->items[i]; }

/* IOReport */

obj *IOReportCopyChannelsInGroup(obj *group, obj *subgroup, unsigned long long a,
                                 unsigned long long b, unsigned long long c) {
  if (group == NULL || strcmp(group->text, "Energy Model") != 0) return NULL;
  return owned(DICTIONARY);
}

obj *IOReportCreateSubscription(void *allocator, obj *desired, obj **subscribed,
                                unsigned long long id, void *options) {
  *subscribed = owned(DICTIONARY);
  return owned(SUBSCRIPTION);
}

obj *IOReportCreateSamples(obj *subscription, obj *channels, void *allocator) {
  return owned(SAMPLE);
}

obj *IOReportCreateSamplesDelta(obj *previous, obj *current, void *allocator) {
  obj *delta = owned(SAMPLE);
  obj *array = internal(ARRAY);
  array->items[0] = channel("Energy Model", "CPU Energy", "mJ  ", 100);
  array->items[1] = channel("Energy Model", "GPU Energy", "nJ", 5000000);
  array->items[2] = channel("Energy Model", "DRAM", "mJ", 7);
  array->items[3] = channel("CPU Stats", "CPU Core Performance States", "ticks", 42);
  array->count = 4;
  delta->items[0] = array;
  return delta;
}

obj *IOReportChannelGetGroup(obj *c) { return c->group; }
obj *IOReportChannelGetChannelName(obj *c) { return c->name; }
obj *IOReportChannelGetUnitLabel(obj *c) { return c->unit; }
long long IOReportSimpleGetIntegerValue(obj *c, int index) { return c->value; }
