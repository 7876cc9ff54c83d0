package org.meshjava.energy;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.meshjava.core.EnergyDomain;

/**
 * Turns an IOReport "Energy Model" sample delta into nanojoules per domain. Pure, so it is tested
 * on recorded samples off Apple hardware.
 *
 * <p>Mapping: a channel whose name ends in {@code CPU Energy} (one per die on multi-die parts,
 * {@code DIE_0_CPU Energy}…) is the CPU rail and counts towards CPU package 0; {@code GPU Energy}
 * and the GPU's SRAM rail (a name starting {@code GPU SRAM}, which monitoring tools report apart
 * from {@code GPU Energy}, so it is a rail of its own that GPU work draws on) are GPU 0; a name
 * starting {@code DRAM} is DRAM 0. Everything else is not a domain of ours and is skipped:
 * per-cluster {@code ECPU}/{@code PCPU} rails are parts of the CPU rail, and the neural engine
 * ({@code ANE}) runs no work of this project's engines (an engine that used it would need a domain
 * of its own before its figures could be hardware readings). Unit labels are trimmed, then {@code
 * mJ}, {@code uJ}/{@code µJ} and {@code nJ} are understood; a mapped channel in any other unit, or
 * with a negative delta, fails the sample rather than being guessed at. Stateless.
 */
final class IoReportEnergyModel {
  static final String GROUP = "Energy Model";

  private IoReportEnergyModel() {}

  /** The domain an entry counts towards, if any. */
  static Optional<EnergyDomain> domainOf(IoReportEntry entry) {
    if (!entry.group().equals(GROUP)) {
      return Optional.empty();
    }
    String name = entry.channel();
    if (name.endsWith("CPU Energy")) {
      return Optional.of(EnergyDomain.cpuPackage(0));
    }
    if (name.equals("GPU Energy") || name.startsWith("GPU SRAM")) {
      return Optional.of(EnergyDomain.gpu(0));
    }
    if (name.startsWith("DRAM")) {
      return Optional.of(EnergyDomain.dram(0));
    }
    return Optional.empty();
  }

  /**
   * Sums a sample delta into nanojoules per domain kind (all index 0 on Apple silicon).
   *
   * @throws CounterException {@link CounterIssue#READ_FAILED} for a mapped channel with an unknown
   *     unit or a negative value
   */
  static Map<EnergyDomain.Kind, Long> nanojoules(List<IoReportEntry> delta)
      throws CounterException {
    Map<EnergyDomain.Kind, Long> sums = new EnumMap<>(EnergyDomain.Kind.class);
    for (IoReportEntry e : delta) {
      Optional<EnergyDomain> domain = domainOf(e);
      if (domain.isEmpty()) {
        continue;
      }
      if (e.value() < 0) {
        throw new CounterException(
            CounterIssue.READ_FAILED,
            "IOReport channel '"
                + e.channel()
                + "' went backwards by "
                + e.value()
                + " "
                + e.unit());
      }
      long nj;
      try {
        nj = Math.multiplyExact(e.value(), nanojoulesPer(e));
      } catch (ArithmeticException overflow) {
        throw new CounterException(
            CounterIssue.READ_FAILED,
            "IOReport channel '" + e.channel() + "' overflowed",
            overflow);
      }
      EnergyDomain.Kind kind = domain.get().kind();
      sums.put(kind, addOrFail(sums.getOrDefault(kind, 0L), nj, kind));
    }
    return sums;
  }

  /**
   * Adds nanojoules to a domain's total, failing the read rather than throwing an unchecked
   * overflow out of the meter: no rail draws 2^63 nJ (292 years at 1 kW), so such a sum is garbage.
   */
  static long addOrFail(long totalNj, long nj, EnergyDomain.Kind kind) throws CounterException {
    try {
      return Math.addExact(totalNj, nj);
    } catch (ArithmeticException overflow) {
      throw new CounterException(
          CounterIssue.READ_FAILED, "IOReport " + kind + " total overflowed a long", overflow);
    }
  }

  private static long nanojoulesPer(IoReportEntry e) throws CounterException {
    // Labels come padded on some releases ("mJ  "); the padding carries no meaning.
    return switch (e.unit().strip()) {
      case "mJ" -> 1_000_000L;
      case "uJ", "µJ" -> 1_000L;
      case "nJ" -> 1L;
      default ->
          throw new CounterException(
              CounterIssue.READ_FAILED,
              "IOReport channel '" + e.channel() + "' has unknown unit '" + e.unit() + "'");
    };
  }
}
