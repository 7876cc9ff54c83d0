package org.meshjava.energy;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.EnergyDomain;

/**
 * Finds NVML energy counters: loads the library, counts GPUs, and keeps each GPU whose energy
 * counter answers. A GPU that answers with an error (older boards return NOT_SUPPORTED) is
 * reported with NVML's text and left out. Stateless.
 */
final class NvmlDiscovery {
  private NvmlDiscovery() {}

  static void discover(String library, List<EnergyChannel> found, List<CounterStatus> rejected) {
    NvmlLibrary nvml;
    try {
      nvml = NvmlLibrary.load(library);
    } catch (CounterException e) {
      rejected.add(CounterStatus.unavailable("nvml", Optional.empty(), e.issue(), e.getMessage()));
      return;
    }
    nvml.retain(); // held while discovering, so a GPU that fails does not unload the rest
    try {
      int count;
      try {
        count = nvml.deviceCount();
      } catch (CounterException e) {
        rejected.add(
            CounterStatus.unavailable("nvml", Optional.empty(), e.issue(), e.getMessage()));
        return;
      }
      if (count <= 0) {
        rejected.add(
            CounterStatus.unavailable(
                "nvml", Optional.empty(), CounterIssue.NOT_PRESENT, "NVML reports no GPUs"));
        return;
      }
      for (int i = 0; i < count; i++) {
        String name = "nvml:gpu" + i;
        Optional<EnergyDomain> domain = Optional.of(EnergyDomain.gpu(i));
        NvmlChannel channel;
        try {
          MemorySegment device = nvml.handle(i);
          channel = new NvmlChannel(nvml, i, device);
        } catch (CounterException e) {
          rejected.add(CounterStatus.unavailable(name, domain, e.issue(), e.getMessage()));
          continue;
        }
        try {
          channel.readTotalUj();
          found.add(channel);
        } catch (CounterException e) {
          channel.release();
          rejected.add(CounterStatus.unavailable(name, domain, e.issue(), e.getMessage()));
        }
      }
    } finally {
      nvml.release();
    }
  }
}
