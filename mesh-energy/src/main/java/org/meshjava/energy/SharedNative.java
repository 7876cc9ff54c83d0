package org.meshjava.energy;

/**
 * A native resource that several channels read through, such as a loaded NVML or an IOReport
 * subscription: each channel retains it once and releases it once, and the last release frees it.
 * Implementations are thread-safe.
 */
interface SharedNative {

  /** Registers one more user. */
  void retain();

  /** Drops a user; the last one frees the resource. */
  void release();
}
