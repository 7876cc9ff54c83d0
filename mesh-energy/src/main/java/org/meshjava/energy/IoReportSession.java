package org.meshjava.energy;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.internal.ThrowableWords;

/**
 * One IOReport subscription shared by the channels over it. Each read takes a fresh sample delta
 * and folds every mapped channel into a running nanojoule total, so readings are monotonic like
 * RAPL's and the same liveness rule and window books apply. Thread-safe.
 */
final class IoReportSession implements SharedNative {
  private final IoReportSampler sampler;
  private final Map<EnergyDomain.Kind, Long> totalsNj = new EnumMap<>(EnergyDomain.Kind.class);
  private final Map<EnergyDomain.Kind, JointMark> marks = new EnumMap<>(EnergyDomain.Kind.class);

  /** Domains a failed sample held energy for, with why it failed, until each one's next read. */
  private final Map<EnergyDomain.Kind, String> missedSamples =
      new EnumMap<>(EnergyDomain.Kind.class);

  private int users;
  private boolean primed;

  IoReportSession(IoReportSampler sampler) {
    this.sampler = Objects.requireNonNull(sampler, "sampler");
  }

  /**
   * Samples and returns the µJ accumulated on {@code kind} since the session began.
   *
   * @throws CounterException when this sample fails, or when one taken since this domain's last
   *     read failed: that sample held this domain's energy too, and the next one starts after it
   */
  synchronized long totalUj(EnergyDomain.Kind kind) throws CounterException {
    String missed = missedSamples.remove(kind);
    if (missed != null) {
      throw new CounterException(
          CounterIssue.READ_FAILED,
          "an IOReport sample taken for another domain failed, and its "
              + kind
              + " energy with it ("
              + missed
              + ")");
    }
    try {
      sample();
    } catch (CounterException | RuntimeException | Error e) {
      // One sample carries every rail, and the sampler has moved past it: each other domain's
      // next read must fail as this one does, or its window would be short of that interval. So
      // too where the sample threw rather than failed (the JVM failing passes out of the native
      // sampler, a sampler's own throw): the sampler may have moved past it all the same.
      String why =
          e instanceof CounterException
              ? String.valueOf(e.getMessage())
              : "the sample threw " + ThrowableWords.describe(e);
      for (EnergyDomain.Kind other : EnergyDomain.Kind.values()) {
        if (other != kind) {
          missedSamples.putIfAbsent(other, why);
        }
      }
      throw e;
    }
    return totalsNj.getOrDefault(kind, 0L) / 1_000;
  }

  /** Takes one sample delta and folds it into every domain's total, all or none. */
  private void sample() throws CounterException {
    if (!primed) {
      sampler.sampleDelta();
      primed = true;
    } else {
      List<IoReportEntry> delta = sampler.sampleDelta();
      Map<EnergyDomain.Kind, Long> next = new EnumMap<>(totalsNj);
      for (Map.Entry<EnergyDomain.Kind, Long> e :
          IoReportEnergyModel.nanojoules(delta).entrySet()) {
        next.put(
            e.getKey(),
            IoReportEnergyModel.addOrFail(
                next.getOrDefault(e.getKey(), 0L), e.getValue(), e.getKey()));
      }
      // All domains or none: a sample that fails part-way adds to no total.
      totalsNj.clear();
      totalsNj.putAll(next);
      for (IoReportEntry e : delta) {
        IoReportEnergyModel.domainOf(e)
            .ifPresent(
                d ->
                    marks
                        .computeIfAbsent(d.kind(), k -> new JointMark())
                        .saw(e.channel(), e.value() > 0));
      }
      marks.values().forEach(JointMark::endRead);
    }
  }

  /**
   * The liveness mark of {@code kind} ({@link EnergyChannel#livenessMark}): it moves once every
   * rail counted towards the domain (each die's CPU rail, the GPU and its SRAM) has reported energy
   * since it last did.
   */
  synchronized long mark(EnergyDomain.Kind kind) {
    JointMark m = marks.get(kind);
    return m == null ? 0 : m.mark();
  }

  @Override
  public synchronized void retain() {
    users++;
  }

  @Override
  public synchronized void release() {
    if (--users == 0) {
      sampler.release();
    }
  }
}
