package org.meshjava.energy;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.meshjava.core.EnergyDomain;

/**
 * Finds NVML energy counters and binds each to the GPU an engine sees. Design note: an engine's
 * {@code gpu:n} is the {@code n}-th GPU visible to the process, numbered as the CUDA runtime does
 * ({@link GpuVisibility}). NVIDIA documents NVML's enumeration index as unrelated to CUDA's, so a
 * board is bound by identity: a {@code GPU-} UUID in {@code CUDA_VISIBLE_DEVICES} names its board
 * (a unique prefix is enough, as for CUDA); an ordinal names the board at that place in PCI bus
 * order when {@code CUDA_DEVICE_ORDER=PCI_BUS_ID}, and is ambiguous otherwise (CUDA's default order
 * is its own guess of the fastest device) unless the host has a single board. A {@code MIG-} entry,
 * or a board in MIG mode, is refused: its counter reads the whole board, other tenants included. A
 * board the process does not see is reported and not used. Stateless.
 */
final class NvmlDiscovery {
  private NvmlDiscovery() {}

  /** One board NVML reports. */
  private record Board(int index, String uuid, MemorySegment handle, Optional<Long> pci) {}

  static String counterName(String uuid) {
    return "nvml:" + uuid;
  }

  static void discover(
      String library,
      GpuVisibility visibility,
      ProbeClock clock,
      List<EnergyChannel> found,
      List<CounterStatus> rejected) {
    // One budget for the whole of NVML's discovery, initialisation included.
    MomentaryRetry retry = new MomentaryRetry(clock);
    NvmlLibrary nvml;
    try {
      nvml = NvmlLibrary.load(library, retry);
    } catch (CounterException e) {
      rejected.add(CounterStatus.unavailable("nvml", Optional.empty(), e));
      return;
    }
    nvml.retain(); // held while discovering, so a GPU that fails does not unload the rest
    try {
      bindBoards(nvml, visibility, retry, found, rejected);
    } finally {
      nvml.release();
    }
  }

  private static void bindBoards(
      NvmlLibrary nvml,
      GpuVisibility visibility,
      MomentaryRetry retry,
      List<EnergyChannel> found,
      List<CounterStatus> rejected) {
    int count;
    try {
      count = retry.call(nvml::deviceCount);
    } catch (CounterException e) {
      rejected.add(CounterStatus.unavailable("nvml", Optional.empty(), e));
      return;
    }
    if (count <= 0) {
      rejected.add(
          CounterStatus.unavailable(
              "nvml", Optional.empty(), CounterIssue.NOT_PRESENT, "NVML reports no GPUs"));
      return;
    }
    List<Board> boards = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      try {
        int index = i;
        MemorySegment handle = retry.call(() -> nvml.handle(index));
        boards.add(
            new Board(
                i,
                retry.call(() -> nvml.uuid(handle)),
                handle,
                retry.call(() -> nvml.pciLocation(handle))));
      } catch (CounterException e) {
        rejected.add(CounterStatus.unavailable("nvml:index" + i, Optional.empty(), e));
      }
    }
    Map<Board, EnergyDomain> visible = new LinkedHashMap<>();
    List<String> entries = visibility.entries().orElseGet(() -> ordinals(boards.size()));
    for (int n = 0; n < entries.size(); n++) {
      String entry = entries.get(n);
      EnergyDomain domain = EnergyDomain.gpu(n);
      if (entry.startsWith("MIG-")) {
        rejected.add(
            CounterStatus.unavailable(
                "nvml:" + entry,
                Optional.of(domain),
                CounterIssue.SHARED_BOARD,
                "visible device "
                    + n
                    + " is a MIG instance; the board's counter includes the"
                    + " other instances"));
        continue;
      }
      if (!entry.startsWith("GPU-") && !isOrdinal(entry, boards.size())) {
        break; // CUDA ignores the list from its first invalid entry on
      }
      Optional<Board> board = resolve(entry, boards, visibility, rejected, domain);
      if (board.isEmpty()) {
        continue;
      }
      if (visible.containsKey(board.get())) {
        break; // CUDA stops at a repeated device as at any invalid entry
      }
      visible.put(board.get(), domain);
    }
    Map<Board, EnergyDomain> admitted = new LinkedHashMap<>();
    for (Board b : boards) {
      EnergyDomain domain = visible.get(b);
      String name = counterName(b.uuid());
      if (domain == null) {
        rejected.add(
            CounterStatus.unavailable(
                name,
                Optional.empty(),
                CounterIssue.NOT_A_DOMAIN,
                "NVML board " + b.index() + " is not a GPU this process can be bound to"));
        continue;
      }
      try {
        if (retry.call(() -> nvml.migEnabled(b.handle()))) {
          rejected.add(
              CounterStatus.unavailable(
                  name,
                  Optional.of(domain),
                  CounterIssue.SHARED_BOARD,
                  "the board is in MIG mode; its counter includes every instance's tenant"));
          continue;
        }
      } catch (CounterException e) {
        rejected.add(CounterStatus.unavailable(name, Optional.of(domain), e));
        continue;
      }
      admitted.put(b, domain);
    }
    // Each board's power bound only once every board's required calls are done: the bound is
    // optional, and its retries, asked board by board, could spend the budget a later board's MIG
    // check needs, losing that board until a restart for a figure it can do without.
    for (Map.Entry<Board, EnergyDomain> a : admitted.entrySet()) {
      Board b = a.getKey();
      EnergyDomain domain = a.getValue();
      String name = counterName(b.uuid());
      NvmlChannel channel = channel(nvml, b, domain, retry);
      try {
        channel.readTotalUj();
        found.add(channel);
      } catch (CounterException e) {
        if (e.issue() == CounterIssue.READ_FAILED) {
          // NVML named a condition of the moment (not ready, busy, timed out): the board is kept
          // as a counter that is not live, and the meter's re-probes, which look again at every
          // counter not live, bring it in once it answers. Refused here, it would be lost until a
          // restart.
          found.add(channel);
        } else {
          channel.release();
          rejected.add(CounterStatus.unavailable(name, Optional.of(domain), e));
        }
      }
    }
  }

  /**
   * Builds a board's channel with its power bound (SPEC.md 40 §3). A code of the moment is tried
   * again within the discovery's budget: a board settable past 1 kW, settled at 2 kW on one {@code
   * UNKNOWN}, would have its own draw refused as resets. The figure is optional, as a RAPL zone's
   * constraint files are: a board that gives none is still metered at the floor, and one whose
   * query still fails after the budget is asked again at each of its probes.
   */
  private static NvmlChannel channel(
      NvmlLibrary nvml, Board b, EnergyDomain domain, MomentaryRetry retry) {
    NvmlChannel.Bound bound;
    boolean settled = true;
    try {
      bound = NvmlChannel.Bound.of(retry.call(() -> nvml.maxPowerLimitMw(b.handle())));
    } catch (CounterException e) {
      settled = e.issue() != CounterIssue.READ_FAILED;
      bound = new NvmlChannel.Bound(PowerBound.GPU_BOARD.watts(), unreadLimitNote(e, settled));
    }
    return new NvmlChannel(
        nvml, domain, b.uuid(), b.handle(), bound.watts(), settled, bound.note());
  }

  /** Why a board is held to the floor when its power-limit range could not be read. */
  static String unreadLimitNote(CounterException e, boolean forGood) {
    // NVML's own words, not the retry's, which speak of a board left unmetered: this one is
    // metered.
    String why = e.getCause() instanceof CounterException last ? last.getMessage() : e.getMessage();
    return "the floor: its settable power limit could not be read ("
        + why
        + "), so a draw past "
        + PowerBound.GPU_BOARD.watts()
        + " W reads as a reset"
        + (forGood ? "" : "; asked again at each re-probe of the board");
  }

  /** The board one {@code CUDA_VISIBLE_DEVICES} entry names, if it names one unambiguously. */
  private static Optional<Board> resolve(
      String entry,
      List<Board> boards,
      GpuVisibility visibility,
      List<CounterStatus> rejected,
      EnergyDomain domain) {
    if (entry.startsWith("GPU-")) {
      List<Board> matches = boards.stream().filter(b -> b.uuid().startsWith(entry)).toList();
      if (matches.size() == 1) {
        return Optional.of(matches.getFirst());
      }
      rejected.add(
          CounterStatus.unavailable(
              "nvml:" + entry,
              Optional.of(domain),
              CounterIssue.NOT_PRESENT,
              matches.isEmpty()
                  ? "no board has UUID " + entry
                  : "UUID prefix " + entry + " names " + matches.size() + " boards"));
      return Optional.empty();
    }
    int ordinal = Integer.parseInt(entry);
    if (boards.size() == 1) {
      return Optional.of(boards.getFirst());
    }
    if (visibility.pciBusOrder() && boards.stream().allMatch(b -> b.pci().isPresent())) {
      List<Board> byBus =
          boards.stream().sorted(Comparator.comparing(b -> b.pci().orElseThrow())).toList();
      return Optional.of(byBus.get(ordinal));
    }
    rejected.add(
        CounterStatus.unavailable(
            "nvml:cuda" + ordinal,
            Optional.of(domain),
            CounterIssue.NOT_A_DOMAIN,
            "CUDA device "
                + ordinal
                + " cannot be matched to an NVML board: set"
                + " CUDA_DEVICE_ORDER=PCI_BUS_ID, or name GPUs by UUID in CUDA_VISIBLE_DEVICES"));
    return Optional.empty();
  }

  private static boolean isOrdinal(String entry, int boards) {
    try {
      int ordinal = Integer.parseInt(entry);
      return ordinal >= 0 && ordinal < boards;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static List<String> ordinals(int count) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(Integer.toString(i));
    }
    return out;
  }
}
