package org.meshjava.energy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Which GPUs this process sees, and in what order, as the CUDA runtime decides it: {@code
 * CUDA_VISIBLE_DEVICES} (a comma-separated list of ordinals, {@code GPU-} UUIDs or {@code MIG-}
 * instance UUIDs) and {@code CUDA_DEVICE_ORDER} ({@code PCI_BUS_ID} or the default {@code
 * FASTEST_FIRST}). An engine's {@code gpu:n} is the {@code n}-th GPU it sees; the meter binds it to
 * a board by UUID (or PCI bus id), never by NVML's index, which NVIDIA documents as unrelated to
 * the CUDA index. Immutable.
 *
 * @param visibleDevices the value of {@code CUDA_VISIBLE_DEVICES}; empty when unset (every GPU)
 * @param deviceOrder the value of {@code CUDA_DEVICE_ORDER}; empty when unset
 */
public record GpuVisibility(Optional<String> visibleDevices, Optional<String> deviceOrder) {

  /** Validates. */
  public GpuVisibility {
    Objects.requireNonNull(visibleDevices, "visibleDevices");
    Objects.requireNonNull(deviceOrder, "deviceOrder");
  }

  /** What this process's environment says. */
  public static GpuVisibility fromEnvironment() {
    return new GpuVisibility(
        Optional.ofNullable(System.getenv("CUDA_VISIBLE_DEVICES")),
        Optional.ofNullable(System.getenv("CUDA_DEVICE_ORDER")));
  }

  /** Every GPU, in CUDA's default order. */
  public static GpuVisibility all() {
    return new GpuVisibility(Optional.empty(), Optional.empty());
  }

  /** Whether CUDA numbers GPUs by PCI bus id, so an ordinal names a board. */
  boolean pciBusOrder() {
    return deviceOrder.map(o -> o.strip().equals("PCI_BUS_ID")).orElse(false);
  }

  /**
   * The entries of {@code CUDA_VISIBLE_DEVICES} in order, or empty when it is unset. As CUDA does,
   * the list ends at the first entry that is not a valid device.
   */
  Optional<List<String>> entries() {
    if (visibleDevices.isEmpty()) {
      return Optional.empty();
    }
    List<String> out = new ArrayList<>();
    String value = visibleDevices.get().strip();
    if (value.isEmpty()) {
      return Optional.of(out);
    }
    for (String raw : value.split(",", -1)) {
      String e = raw.strip();
      if (e.isEmpty()) {
        break;
      }
      out.add(e);
    }
    return Optional.of(List.copyOf(out));
  }
}
