package org.meshjava.energy;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/**
 * One powercap zone's {@code energy_uj}, with wraparound at {@code max_energy_range_uj}.
 *
 * <p>Design note. The kernel's RAPL driver (the same code for the MSR, MMIO and TPMI interfaces,
 * Intel's and AMD's) publishes {@code energy_uj} as the 32-bit energy status register times the
 * energy unit, and {@code max_energy_range_uj} as the register's largest value, 2^32 − 1, times the
 * same unit. So the file reads the range itself, and one unit later 0: a wrap adds {@code range −
 * previous + current} plus that unit. The unit is not published on its own; it is the range over
 * 2^32 − 1 (61 µJ behind the common range of 262 143 328 850 µJ, 15 µJ behind 65 532 610 987).
 */
final class RaplChannel extends NamedChannel {
  /**
   * The most power a zone that publishes no higher figure is assumed to draw, for the wrap bound
   * ({@link PowerBound#PACKAGE}; {@link RaplZonePower} for the rest). At 1 kW the smallest ranges
   * seen (about 65 kJ) wrap in a little over a minute.
   */
  static final long ASSUMED_MAX_WATTS = PowerBound.PACKAGE.watts();

  /**
   * Time added to the gap between two reads when bounding the increment between them ({@link
   * PowerBound#PACKAGE}). A value read lags the energy drawn by up to one refresh of the energy
   * status MSR, about 1 ms (Intel SDM Vol. 3B §14.9.3); a counter republished in lumps lags by a
   * whole lump. The bound still tells every reset from a wrap except one from within about 100 J of
   * the range.
   */
  static final long REFRESH_SLACK_NANOS = PowerBound.PACKAGE.slackNanos();

  /**
   * The shortest wrap time at the zone's most power a zone may have to be used. Real ranges last a
   * minute or more at 1 kW (65.5 kJ and up); a zone whose range lasts under a second would have to
   * be read by a timer at sub-second intervals forever, each read landing in the windows it meters,
   * and is refused instead.
   */
  static final long MIN_WRAP_NANOS = 1_000_000_000L;

  /**
   * The shortest gap between two reads over which the zone's power is taken as seen: a hundred
   * refreshes of the energy status MSR (about 1 ms), so a refresh more or less is at most a
   * hundredth. Over ten, a refresh more was a tenth, and a zone drawing 46 % of its bound could
   * read past half and have its interval shortened (and the window across that read refused) for a
   * load it does not draw. Still far inside the shortest interval a zone is read at (half a
   * second), so a rising draw is seen as soon.
   */
  static final long MIN_OBSERVED_GAP_NANOS = 100_000_000L;

  /** The largest value of the 32-bit energy status register behind every RAPL zone. */
  private static final long STATUS_REGISTER_MAX = 0xFFFF_FFFFL;

  /**
   * The largest {@code max_energy_range_uj} the RAPL driver can publish: the register's largest
   * value at the coarsest energy unit its 5-bit unit field can state, 1 J (2^-0). A larger range is
   * no status register's, so the wrap step this class derives from it (a "unit" of more than 1 J;
   * 2.1 kJ at 2^63 − 1) has no basis: a wrap read within about two seconds would be refused as a
   * reset, one read later counted 2.1 kJ over.
   */
  static final long MAX_RANGE_UJ = STATUS_REGISTER_MAX * 1_000_000L;

  private final Path energyFile;
  // The file as the file system resolves it: /sys/class/powercap/intel-rapl:0 links into
  // /sys/devices/virtual/powercap/intel-rapl, and both layouts name one counter.
  private final Path hardware;
  private final SysfsReader reader;
  private final ProbeClock clock;
  private final long rangeUj;
  private final long maxWatts;
  private final CounterAccumulator accumulator;

  /**
   * The power the read interval is reckoned from: {@link #maxWatts} until the zone is seen drawing
   * more than half of it, then four times the highest power seen, back towards {@link #maxWatts}
   * once the draw has fallen (see {@link #observe}).
   */
  private long readBoundWatts;

  private boolean observed;

  /** {@link #readBoundWatts} before the last read's draw was judged; see {@link #refused()}. */
  private long readBoundBeforeRead;

  private long lastTotalUj;
  private long lastReadEndNanos;

  /**
   * When the zone's current run of quiet gaps (each under an eighth of {@link #readBoundWatts})
   * began, or -1 outside such a run; see {@link #observe}.
   */
  private long quietSinceNanos = -1;

  /** The highest power seen in the current quiet run, in watts. */
  private double quietPeakWatts;

  /**
   * Whether a probe of this zone is running: its reads are not judged (its burn is its own load,
   * not a serve's), and the first read after it is judged from its last.
   */
  private boolean probing;

  /** A zone that publishes no power figure: bounded at {@link #ASSUMED_MAX_WATTS}. */
  RaplChannel(
      String name,
      EnergyDomain domain,
      Path energyFile,
      long rangeUj,
      SysfsReader reader,
      ProbeClock clock) {
    this(name, domain, energyFile, rangeUj, ASSUMED_MAX_WATTS, reader, clock);
  }

  /**
   * A zone taken to draw at most {@code maxWatts}: its read bound and its reset bound both follow
   * from it.
   */
  RaplChannel(
      String name,
      EnergyDomain domain,
      Path energyFile,
      long rangeUj,
      long maxWatts,
      SysfsReader reader,
      ProbeClock clock) {
    super(name, domain);
    if (maxWatts <= 0) {
      throw new IllegalArgumentException("maxWatts must be positive: " + maxWatts);
    }
    this.maxWatts = maxWatts;
    this.readBoundWatts = maxWatts;
    this.readBoundBeforeRead = maxWatts;
    this.energyFile = Objects.requireNonNull(energyFile, "energyFile");
    this.hardware = resolved(energyFile);
    this.reader = Objects.requireNonNull(reader, "reader");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.rangeUj = rangeUj;
    // A value smaller than the last is a wrap only if the zone could have drawn the rest of the
    // range in between; otherwise the counter was reset (suspend to RAM, a package reset) and
    // folding it in as a wrap would add up to the whole range to whatever window is open.
    this.accumulator =
        new CounterAccumulator(rangeUj, wrapStepUj(rangeUj), 1, maxWatts, REFRESH_SLACK_NANOS);
  }

  /**
   * What the step from {@code rangeUj} back to 0 adds: one energy unit, the range over the status
   * register's largest value, to the nearest µJ (the file's own resolution).
   */
  static long wrapStepUj(long rangeUj) {
    long whole = rangeUj / STATUS_REGISTER_MAX;
    long rest = rangeUj % STATUS_REGISTER_MAX;
    return rest >= STATUS_REGISTER_MAX - rest ? whole + 1 : whole;
  }

  /**
   * The time the counter takes to run through its whole range at its most power: read at least this
   * often, it cannot wrap twice between two reads.
   */
  @Override
  public long maxReadGapNanos() {
    // range µJ at P W (P µJ per µs) takes range / P µs.
    return Math.multiplyExact(rangeUj / readBoundWatts, 1_000L);
  }

  /** The most power the zone is taken to draw, in watts. */
  long maxWatts() {
    return maxWatts;
  }

  /** The zone's most power with the refresh slack: the same figure as its read bound. */
  @Override
  public PowerBound powerBound() {
    return new PowerBound(maxWatts, REFRESH_SLACK_NANOS);
  }

  long rangeUj() {
    return rangeUj;
  }

  @Override
  public long readTotalUj() throws CounterException {
    long start = clock.nanoTime();
    long total;
    try {
      long raw = readRaw();
      total = accumulator.advance(raw, name(), start, clock.nanoTime());
    } catch (CounterException e) {
      // Nothing is known of the draw since the last good read: the next one starts afresh, so a
      // run of refused reads cannot pass for a quiet gap and lengthen the interval.
      observed = false;
      quietSinceNanos = -1;
      throw e;
    }
    readBoundBeforeRead = readBoundWatts;
    observe(total, start, clock.nanoTime());
    return total;
  }

  /**
   * The meter refused the total the last read returned (past the zone's power bound over the reads
   * it keeps): that read's draw is no draw, so the read bound it may have raised goes back to what
   * it was, and the draw is judged afresh from the next read, as after a read the accumulator
   * refused. A counter lying by just under the bound at every read (refused by the meter over
   * several of them) would otherwise raise the bound fifty times over the spans between them.
   */
  @Override
  public void refused() {
    readBoundWatts = readBoundBeforeRead;
    observed = false;
    quietSinceNanos = -1;
  }

  /**
   * Shortens the read interval when the zone draws more than half the power it is read for, and
   * lengthens it again once the draw has fallen for good. A second wrap between two reads shows in
   * neither value (the increment reads as the energy less a whole range), so the interval must be
   * set before the zone draws that much; what can be seen is the power rising towards it, read over
   * the gaps between reads. Past half the bound, the interval is reckoned from four times the
   * highest power seen (twice, as for a published limit, and twice again so a load that keeps
   * rising moves it only at each doubling). A read less than {@link #MIN_OBSERVED_GAP_NANOS} after
   * the last judged one is not judged alone (the counter's refresh makes such a gap noise): the
   * draw is judged from that same read once a later one is far enough from it, so reads closer
   * together (the watch's, every 2 ms while windows are open) still move the interval. A probe's
   * reads are not judged: they measure its own burn. The reset bound keeps {@link #maxWatts}.
   *
   * <p>Without a way back, a load that rose once would keep the zone on its shortest interval for
   * the life of the process, each timed read landing in the windows it meters. The bound comes down
   * only after every gap for as long as the zone takes to run through its range at the current
   * bound drew under an eighth of it, and only to four times the highest power of those gaps, never
   * below {@link #maxWatts}: the raise needs more than half, so a load between the two thresholds
   * moves the interval neither way, and one just under the eighth lands a factor of two below the
   * next raise (hysteresis, no flapping). Lengthening takes no more risk than the zone's first
   * interval did: a load that leaps past twice the bound within one interval was already unseen
   * there (SPEC.md 40 §3).
   */
  private void observe(long total, long start, long end) {
    long gap = start - lastReadEndNanos;
    if (observed && !probing && gap < MIN_OBSERVED_GAP_NANOS && total >= lastTotalUj) {
      // Too short to judge alone (the watch reads every 2 ms while windows are open): the draw is
      // judged from the same earlier read once the span from it is long enough.
      return;
    }
    if (observed && !probing && total >= lastTotalUj) {
      // µJ per µs is W; from the end of the last read to the start of this one, the shortest the
      // energy can have been drawn in, so the power is not understated.
      double watts = (total - lastTotalUj) * 1_000.0 / gap;
      if (2 * watts > readBoundWatts) {
        readBoundWatts = wattsFor(watts);
        quietSinceNanos = -1;
      } else if (8 * watts < readBoundWatts) {
        if (quietSinceNanos < 0) {
          quietSinceNanos = lastReadEndNanos;
          quietPeakWatts = watts;
        }
        quietPeakWatts = Math.max(quietPeakWatts, watts);
        if (start - quietSinceNanos >= maxReadGapNanos()) {
          readBoundWatts = Math.max(maxWatts, wattsFor(quietPeakWatts));
          quietSinceNanos = -1;
        }
      } else {
        quietSinceNanos = -1;
      }
    }
    observed = true;
    lastTotalUj = total;
    lastReadEndNanos = end;
  }

  /** Four times {@code watts}, rounded up, within the range the interval arithmetic takes. */
  private static long wattsFor(double watts) {
    return (long) Math.min(Long.MAX_VALUE / 1_000.0, Math.ceil(4 * watts));
  }

  @Override
  public void probing(boolean running) {
    probing = running;
  }

  /**
   * Reads {@code energy_uj} as a number of µJ.
   *
   * @throws CounterException {@link CounterIssue#NOT_PRESENT} if the file does not exist or its
   *     path leads to none, {@link CounterIssue#UNREADABLE} if it cannot be opened otherwise
   *     (denied, refused by a policy; {@link SysfsOpenFailure}), {@link CounterIssue#READ_FAILED}
   *     if it opened and its read failed or holds no number
   */
  long readRaw() throws CounterException {
    String text;
    try {
      text = reader.read(energyFile);
    } catch (NoSuchFileException e) {
      // Not a matter of access: the zone publishes no energy counter (a kernel or driver whose
      // powercap zone has no energy reading, a partial /sys mounted into a container). UNREADABLE
      // would bring discovery's advice on granting read access, which cannot make a file exist.
      throw new CounterException(
          CounterIssue.NOT_PRESENT,
          energyFile + " does not exist: this zone publishes no energy counter to read",
          e);
    } catch (FileSystemException e) {
      // Denied (EACCES), a symbolic link loop, a file where a folder should be, a security
      // policy's refusal: each said in SysfsOpenFailure's words, and only the first is given the
      // advice on granting read access at discovery.
      SysfsOpenFailure failure = SysfsOpenFailure.of(e);
      throw new CounterException(
          failure.issue(), failure.detail(PowercapRefusal.File.ENERGY_UJ, energyFile, e), e);
    } catch (IOException e) {
      // The file opened and its read failed: the driver's answer for this read (EIO where the
      // register read failed, EAGAIN, EBUSY), which a later read may not give. A failure to open
      // is a FileSystemException (denied, missing, ...) and never READ_FAILED.
      throw new CounterException(
          CounterIssue.READ_FAILED, "reading " + energyFile + " failed: " + e, e);
    }
    try {
      return SysfsDecimal.parse(text);
    } catch (NumberFormatException e) {
      throw new CounterException(CounterIssue.READ_FAILED, energyFile + " " + e.getMessage(), e);
    }
  }

  /** The zone's {@code energy_uj}, links resolved: the same file whichever layout named it. */
  @Override
  public Object hardware() {
    return hardware;
  }

  /** {@code file} with its links resolved, or made absolute where it cannot be resolved. */
  private static Path resolved(Path file) {
    try {
      return file.toRealPath();
    } catch (IOException | SecurityException e) {
      return file.toAbsolutePath().normalize();
    }
  }
}
