package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.meshjava.energy.CounterState.LIVE;
import static org.meshjava.energy.ProbedMeter.CPU0;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A read of a counter that never returns (an NVML call on a board fallen off the bus, a sysfs read
 * of a wedged device) holds its ledger's books; a serve on its domain waits for them at most the
 * ledger's bound, and is then graded the estimate (§3.3: the counter is no longer proven live)
 * rather than hang. Once the read returns, the counter is demoted, and what the serves could not
 * book is settled: after a re-probe a serve alone is a reading again. A probe that finds the books
 * held past the wait ends without waiting, the counter unproven. The read blocks on a latch; the
 * bound is 50 ms.
 */
class HangingReadTest {
  private static final Duration NO_HANG = Duration.ofSeconds(10);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();
  private final TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
  private final AtomicBoolean hangNextRead = new AtomicBoolean();
  // The next probe's query of the board's set-up blocks as the read does (set by a test).
  private final AtomicBoolean hangNextRecheck = new AtomicBoolean();
  // The channel's release blocks as the read does (an NVML shutdown on a wedged board; set by a
  // test).
  private final AtomicBoolean hangNextRelease = new AtomicBoolean();
  // The read that hangs fails once it returns (a board gone: NVML says so after a while; set by a
  // test).
  private final AtomicBoolean hungReadFails = new AtomicBoolean();
  // What the read that hangs throws once it returns, if anything (the JVM failing; set by a test).
  private final AtomicReference<Error> hungReadThrows = new AtomicReference<>();
  // How many of the next reads throw an Error a driver binding might (set by a test).
  private final AtomicInteger readsThatThrow = new AtomicInteger();
  // What the channel's release throws, if anything (the JVM failing; set by a test).
  private final AtomicReference<Error> releaseThrows = new AtomicReference<>();
  // The channel's release blocks on latches of its own, apart from the read's (set by a test).
  private final AtomicBoolean hangNextReleaseApart = new AtomicBoolean();
  private final CountDownLatch releaseHanging = new CountDownLatch(1);
  private final CountDownLatch releaseReturns = new CountDownLatch(1);
  private final CountDownLatch readHanging = new CountDownLatch(1);
  private final CountDownLatch readReturns = new CountDownLatch(1);
  private final AtomicInteger reads = new AtomicInteger();
  private final AtomicInteger releases = new AtomicInteger();
  // Run once after the next burn of a probe, on the probe's thread (set by a test).
  private final AtomicBoolean hangAfterNextBurn = new AtomicBoolean();
  // What the probe's next idle wait throws, if anything (a fault in the probe; set by a test).
  private final AtomicReference<Error> nextIdleThrows = new AtomicReference<>();
  // The hung read returns at the probe's next idle wait, on the probe's thread (set by a test).
  private final AtomicBoolean returnAtNextIdle = new AtomicBoolean();

  /** The counter, whose next read blocks once {@link #hangNextRead} is set, until released. */
  private final EnergyChannel hanging =
      new ForwardingChannel(cpu) {
        @Override
        public long readTotalUj() throws CounterException {
          reads.incrementAndGet();
          if (readsThatThrow.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new LinkageError("the driver's binding is gone");
          }
          boolean hung = hangIf(hangNextRead);
          if (hung && hungReadFails.get()) {
            throw new CounterException(CounterIssue.READ_FAILED, "the board is gone");
          }
          Error thrown = hung ? hungReadThrows.get() : null;
          if (thrown != null) {
            throw thrown;
          }
          return super.readTotalUj();
        }

        @Override
        public void recheckAtProbe() {
          hangIf(hangNextRecheck);
        }

        @Override
        public void release() {
          releases.incrementAndGet();
          hangIf(hangNextRelease);
          hangIf(hangNextReleaseApart, releaseHanging, releaseReturns);
          Error thrown = releaseThrows.get();
          if (thrown != null) {
            throw thrown;
          }
        }
      };

  /**
   * Blocks the calling thread until the test lets it go, if {@code armed} was set; once. Returns
   * whether it blocked.
   */
  private boolean hangIf(AtomicBoolean armed) {
    return hangIf(armed, readHanging, readReturns);
  }

  /**
   * {@link #hangIf(AtomicBoolean)} on the latches given: {@code began} counted, until {@code goOn}.
   */
  private static boolean hangIf(AtomicBoolean armed, CountDownLatch began, CountDownLatch goOn) {
    if (!armed.getAndSet(false)) {
      return false;
    }
    began.countDown();
    try {
      goOn.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return true;
  }

  /** The fake clock, but for a read set hanging after a probe's next burn ({@link #hangAfter}). */
  private final ProbeClock probeClock =
      new ProbeClock() {
        @Override
        public long nanoTime() {
          return clock.nanoTime();
        }

        @Override
        public void burnUntil(long deadlineNanos) {
          clock.burnUntil(deadlineNanos);
          if (hangAfterNextBurn.getAndSet(false)) {
            try {
              aReadHangs();
            } catch (InterruptedException e) {
              throw new AssertionError(e);
            }
          }
        }

        @Override
        public void idleUntil(long deadlineNanos) {
          clock.idleUntil(deadlineNanos);
          Error thrown = nextIdleThrows.getAndSet(null);
          if (thrown != null) {
            throw thrown;
          }
          if (returnAtNextIdle.getAndSet(false)) {
            try {
              theReadReturns();
            } catch (InterruptedException e) {
              throw new AssertionError(e);
            }
          }
        }
      };

  private final CounterMeter meter =
      ProbedMeter.overPackageZero(hanging, probeClock, scheduled::add);
  private Thread holder;

  HangingReadTest() {
    meter.ledger(CPU0).booksWait(TimeUnit.MILLISECONDS.toNanos(50));
  }

  /** The meter's timed read starts reading the counter, and hangs there holding its books. */
  private void aReadHangs() throws InterruptedException {
    hangNextRead.set(true);
    holder = Thread.ofPlatform().name("hanging-timed-read").start(meter::pollCounters);
    assertThat(readHanging.await(10, TimeUnit.SECONDS)).as("the read began").isTrue();
  }

  /** {@code probe} runs on its own thread, and hangs querying the board's set-up. */
  private void aProbeHangs(Runnable probe) throws InterruptedException {
    hangNextRecheck.set(true);
    holder = Thread.ofPlatform().name("hanging-probe").start(probe);
    assertThat(readHanging.await(10, TimeUnit.SECONDS)).as("the probe began").isTrue();
  }

  /**
   * Two serves whose reads throw an Error, then a timed read that hangs and, once let go, throws
   * {@code thrown}: the counter's third Error since its probe, which sets it aside. Returns what
   * the read's thread let pass.
   */
  private List<Throwable> aThirdErrorHangs(Error thrown) throws InterruptedException {
    readsThatThrow.set(2);
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(this::serve).isInstanceOf(LinkageError.class);
    }
    hungReadThrows.set(thrown);
    List<Throwable> passed = Collections.synchronizedList(new ArrayList<>());
    aReadHangs();
    holder.setUncaughtExceptionHandler((t, e) -> passed.add(e));
    return passed;
  }

  /**
   * The hung read returns (or throws) as the first wait for the counter's books runs out, before
   * the one that waited goes on; the flag it returns is cleared once that happened.
   */
  private AtomicBoolean theReadReturnsAsAWaitRunsOut() {
    AtomicBoolean first = new AtomicBoolean(true);
    meter
        .ledger(CPU0)
        .afterWaitRanOut(
            () -> {
              if (first.getAndSet(false)) {
                try {
                  theReadReturns();
                } catch (InterruptedException e) {
                  throw new AssertionError(e);
                }
              }
            });
    return first;
  }

  /** The hanging read returns; its thread ends. */
  private void theReadReturns() throws InterruptedException {
    readReturns.countDown();
    holder.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(holder.isAlive()).as("the timed read ended").isFalse();
  }

  /** The read returns; after a re-probe a serve alone is a reading: nothing was left behind. */
  private void theReadReturns_andAfterAReprobeAServeAloneIsAReading(String why)
      throws InterruptedException {
    theReadReturns();
    meter.probeNow();
    assertThat(ProbedMeter.serveAlone(meter, clock)).as(why).isEqualTo(Provenance.HwShunt);
  }

  /** A serve alone is the estimate until a re-probe, and a reading after it. */
  private void anEstimateUntilAReprobe_thenAReading(String why) {
    assertThat(ProbedMeter.serveAlone(meter, clock))
        .as("not live until a re-probe")
        .isEqualTo(Provenance.Estimator);
    meter.probeNow();
    assertThat(ProbedMeter.serveAlone(meter, clock)).as(why).isEqualTo(Provenance.HwShunt);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    readReturns.countDown();
    releaseReturns.countDown();
    if (holder != null) {
      holder.join(TimeUnit.SECONDS.toMillis(10));
    }
    meter.close();
  }

  private Energy serve() {
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    return w.close(1_000);
  }

  @Test
  void servesBesideAReadThatDoesNotReturn_areTheEstimate_andDoNotWaitForIt() throws Exception {
    aReadHangs();

    Energy first = assertTimeoutPreemptively(NO_HANG, this::serve);
    Energy second = assertTimeoutPreemptively(NO_HANG, this::serve);
    List<CounterStatus> during = assertTimeoutPreemptively(NO_HANG, meter::counters);

    assertThat(first).isEqualTo(Energy.estimated(1_000));
    assertThat(second).isEqualTo(Energy.estimated(1_000));
    assertThat(during)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.state()).isEqualTo(CounterState.NOT_LIVE);
              assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
              assertThat(s.detail())
                  .contains("a read of the counter (the meter's timed read) held the books")
                  .contains("past the 50 ms wait");
            });

    theReadReturns();
    assertThat(meter.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue())
                  .as("demoted once the read returned")
                  .contains(CounterIssue.READ_FAILED);
              assertThat(s.detail())
                  .contains("a read of the counter (the meter's timed read) held the books")
                  .contains("past the 50 ms wait");
            });
    anEstimateUntilAReprobe_thenAReading("nothing the waits left behind overlaps a later serve");
  }

  @Test
  void aWindowClosingWhileAReadHangs_isTheEstimate_andLeavesTheBooksOnceItReturns()
      throws Exception {
    MeterWindow open = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    aReadHangs();

    Energy closed = assertTimeoutPreemptively(NO_HANG, () -> open.close(1_000));

    assertThat(closed).isEqualTo(Energy.estimated(1_000));
    theReadReturns_andAfterAReprobeAServeAloneIsAReading(
        "the window that closed unbooked left the books: a later serve alone is a reading");
  }

  @Test
  void aProbeOfAnotherMeterWhileAReadHangs_endsWithoutWaitingForIt() throws Exception {
    TimedCounter other = TimedCounter.rapl(EnergyDomain.gpu(0), clock);
    try (CounterMeter second = ProbedMeter.unprobed(clock, scheduled::add, other)) {
      aReadHangs();

      List<CounterStatus> probed = assertTimeoutPreemptively(NO_HANG, second::probeNow);

      assertThat(probed).singleElement().satisfies(s -> assertThat(s.state()).isEqualTo(LIVE));
      theReadReturns_andAfterAReprobeAServeAloneIsAReading("a serve alone after the read returned");
    }
  }

  @Test
  void aProbeOfTheCounterWhileAReadHangs_endsWithoutWaitingForIt() throws Exception {
    aReadHangs();

    List<CounterStatus> probed = assertTimeoutPreemptively(NO_HANG, meter::probeNow);

    assertThat(probed).singleElement().satisfies(s -> assertThat(s.state()).isNotEqualTo(LIVE));
    theReadReturns_andAfterAReprobeAServeAloneIsAReading("a serve alone after the read returned");
  }

  @Test
  void aProbeThatCouldNotDisturbTheCounter_stillDisturbsIt_pastItsReprobe() throws Exception {
    TimedCounter other = TimedCounter.rapl(EnergyDomain.gpu(0), clock);
    try (CounterMeter second = ProbedMeter.unprobed(clock, scheduled::add, other)) {
      aReadHangs();
      // Inside the other meter's probe, after it tried to disturb the hung counter (its wait ran
      // out): the read returns, the counter is re-probed (its own meter's probe, as a serve's open
      // would start on another thread), and a serve alone runs while the first probe still burns.
      List<Provenance> whileTheProbeRuns = new ArrayList<>();
      other.onRead(
          () -> {
            if (!whileTheProbeRuns.isEmpty()) {
              return;
            }
            whileTheProbeRuns.add(Provenance.Estimator); // once only: the hook reads again
            try {
              theReadReturns();
            } catch (InterruptedException e) {
              throw new AssertionError(e);
            }
            meter.probeNow();
            whileTheProbeRuns.set(0, ProbedMeter.serveAlone(meter, clock));
          });

      assertTimeoutPreemptively(NO_HANG, second::probeNow);
      other.onRead(() -> {});

      assertThat(whileTheProbeRuns)
          .as("a serve beside another meter's probe is no reading, its counter re-probed or not")
          .containsExactly(Provenance.Estimator);
      assertThat(ProbedMeter.serveAlone(meter, clock))
          .as("the probe's disturbance ended with it")
          .isEqualTo(Provenance.HwShunt);
    }
  }

  @Test
  void aDisturbanceEndingWhileAReadHangs_isCountedOutOnceItReturns() throws Exception {
    DomainLedger ledger = meter.ledger(CPU0);
    ledger.beginDisturbance();
    aReadHangs();

    assertTimeoutPreemptively(NO_HANG, ledger::endDisturbance);

    theReadReturns_andAfterAReprobeAServeAloneIsAReading(
        "no disturbance is left counted: a serve alone is a reading");
  }

  @Test
  void aReadHangingInsideAProbe_endsTheProbeWithoutWaiting_andLeavesTheCounterUnproven()
      throws Exception {
    hangAfterNextBurn.set(true);

    List<CounterStatus> probed = assertTimeoutPreemptively(NO_HANG, meter::probeNow);

    assertThat(probed)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.state()).isEqualTo(CounterState.NOT_LIVE);
              assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
            });
    theReadReturns();
    assertThat(meter.counters())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.state()).as("the probe proved nothing").isEqualTo(CounterState.NOT_LIVE);
              assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
              assertThat(s.detail())
                  .contains("its probe could not record a verdict")
                  .contains("a read of the counter (the meter's timed read) held the books");
            });
    anEstimateUntilAReprobe_thenAReading("the re-probe proves it live again");
  }

  @Test
  void aProbeWhoseReadFoundTheBooksHeld_asksForAReprobe_thoughTheReadReturnedBeforeItsEnd()
      throws Exception {
    hangAfterNextBurn.set(true);
    returnAtNextIdle.set(true);

    List<CounterStatus> probed = assertTimeoutPreemptively(NO_HANG, meter::probeNow);

    assertThat(probed)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.state()).as("the probe proved nothing").isEqualTo(CounterState.NOT_LIVE);
              assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
            });
    assertThat(ProbedMeter.serveAlone(meter, clock))
        .as("not live until a re-probe")
        .isEqualTo(Provenance.Estimator);
    assertThat(scheduled)
        .as("a re-probe is asked for at once, not left to the periodic one ten minutes on")
        .hasSize(1);
    scheduled.removeFirst().run();
    assertThat(ProbedMeter.serveAlone(meter, clock))
        .as("the re-probe proves it live again")
        .isEqualTo(Provenance.HwShunt);
  }

  @Test
  void aProbesQueryOfTheBoardThatHangs_isNamedAsSuch_notAsContention() throws Exception {
    hangNextRecheck.set(true);
    whileACallHangs_theStatusNamesIt(
        meter::probeNow, "a read of the counter (a probe's start) held the books");
  }

  /**
   * Runs {@code call} on a thread of its own until it hangs in the channel, then checks that the
   * status names that call as holding the books, and not contention; lets it return.
   */
  private void whileACallHangs_theStatusNamesIt(Runnable call, String named)
      throws InterruptedException {
    holder = Thread.ofPlatform().name("hanging-call").start(call);
    assertThat(readHanging.await(10, TimeUnit.SECONDS)).as("the call began").isTrue();

    List<CounterStatus> during = assertTimeoutPreemptively(NO_HANG, meter::counters);

    assertThat(during)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
              assertThat(s.detail()).contains(named).doesNotContain("contention");
            });
    theReadReturns();
  }

  /**
   * Regression: a release of the channel that hung (NVML's shutdown) was not marked as a call into
   * the channel, so the status blamed contention or a pause of the process.
   */
  @Test
  void aReleaseOfTheChannelThatHangs_isNamedAsSuch_notAsContention() throws Exception {
    hangNextRelease.set(true);
    whileACallHangs_theStatusNamesIt(
        meter::close, "a release of the counter's channel (the meter's close) held the books");
    assertThat(releases).as("released once").hasValue(1);
  }

  /**
   * Regression: a meter closed while a read held its books had its counter demoted at the settle
   * with a WARN saying figures fall back to the estimator until a re-probe proves it live, which a
   * closed meter never runs.
   */
  @Test
  void aMeterClosedWhileAReadHangs_saysItsCounterIsReleased_notAwaitingAReprobe() throws Exception {
    closedWhileAReadHangs_theCounterIsReleasedOnce_andSaidSo(meter::counters);
  }

  /**
   * What is logged as the meter closes while a read hangs, the read then ends, and {@code
   * afterTheRead} runs.
   */
  private String logOfTheClose_andTheHungReadsEnd(Runnable afterTheRead) {
    return CounterLogLevelsTest.logOf(
        () -> {
          assertTimeoutPreemptively(NO_HANG, meter::close);
          readReturns.countDown();
          assertTimeoutPreemptively(NO_HANG, () -> holder.join());
          afterTheRead.run();
        });
  }

  /**
   * Closes the meter while a read hangs, lets the read end, runs {@code afterTheRead}, and checks
   * that the counter was released once, said so, and not said to await a re-probe.
   */
  private void closedWhileAReadHangs_theCounterIsReleasedOnce_andSaidSo(Runnable afterTheRead)
      throws InterruptedException {
    aReadHangs();

    String log = logOfTheClose_andTheHungReadsEnd(afterTheRead);

    assertThat(log)
        .contains("its meter was closed meanwhile, so it is released and not re-probed")
        .doesNotContain("re-probe proves it live");
    assertThat(releases).as("released once").hasValue(1);
  }

  /**
   * Regression: a read that held the books across the meter's close and then failed (rather than
   * returned a total) left the release to a settle that no one ran once the meter was closed: the
   * channel (NVML, the RAPL files) was never released, and the counter was demoted with a WARN
   * promising a re-probe that a closed meter never runs.
   */
  @Test
  void aMeterClosedWhileAReadHangs_thatThenFails_releasesItsCounter_notAwaitingAReprobe()
      throws Exception {
    hungReadFails.set(true);

    // Nothing after the read: the books are not taken again, so the read itself must release.
    closedWhileAReadHangs_theCounterIsReleasedOnce_andSaidSo(() -> {});
  }

  /**
   * Regression: a read that failed while the meter's close waited for its books, before that wait
   * ran out, demoted the counter with a WARN saying figures fall back to the estimator until a
   * re-probe proves it live, which a closed meter never runs.
   */
  @Test
  void aReadFailingWhileTheMetersCloseWaits_isNotSaidToAwaitAReprobe() throws Exception {
    DomainLedger ledger = meter.ledger(CPU0);
    ledger.booksWait(TimeUnit.SECONDS.toNanos(30)); // the close's wait does not run out here
    hungReadFails.set(true);
    aReadHangs();

    String log =
        CounterLogLevelsTest.logOf(
            () -> {
              Thread closer = Thread.ofPlatform().name("closing").start(meter::close);
              assertTimeoutPreemptively(
                  NO_HANG,
                  () -> {
                    while (!ledger.booksAwaited()) {
                      Thread.onSpinWait();
                    }
                  });
              readReturns.countDown();
              assertTimeoutPreemptively(
                  NO_HANG,
                  () -> {
                    holder.join();
                    closer.join();
                  });
            });

    assertThat(log)
        .doesNotContain("re-probe proves it live")
        .contains("its meter was closed meanwhile, so it is released and not re-probed")
        .contains("the board is gone");
    assertThat(releases).as("released once").hasValue(1);
  }

  /**
   * Regression: a read across the meter's close that was the counter's third Error since its probe
   * (so setting it aside), and the JVM failing, demoted the counter with a WARN saying figures fall
   * back to the estimator until a re-probe proves it live, which a closed meter never runs; and no
   * line said what the read met. Now the settle's WARN says the counter is released, quoting the
   * JVM's words, and the Error still passes as it is.
   */
  @Test
  void aMeterClosedWhileAReadHangs_thatThenMeetsTheJvmFailing_quotesIt_notAwaitingAReprobe()
      throws Exception {
    OutOfMemoryError heapGone = new OutOfMemoryError("Java heap space");
    List<Throwable> passed = aThirdErrorHangs(heapGone);

    String log = logOfTheClose_andTheHungReadsEnd(() -> {});

    assertThat(passed).as("the JVM failing passes as it is").containsExactly(heapGone);
    assertThat(log).doesNotContain("re-probe proves it live");
    assertThat(log.lines().filter(l -> l.contains("its meter was closed meanwhile")))
        .singleElement()
        .asString()
        .contains("released and not re-probed")
        .contains("the read then threw java.lang.OutOfMemoryError: Java heap space");
    assertThat(releases).as("released once").hasValue(1);
  }

  /**
   * Regression: a release of the channel left by the meter's close to the settle of a read that
   * held the books, hanging there, was named as that read's own call ("a release of the counter's
   * channel (the meter's timed read)"), not as the close's.
   */
  @Test
  void aReleaseRunByTheSettleOfAHungRead_isNamedAsTheClosesRelease() throws Exception {
    aReadHangs();
    assertTimeoutPreemptively(NO_HANG, meter::close);
    hangNextReleaseApart.set(true);
    readReturns.countDown();
    assertThat(releaseHanging.await(10, TimeUnit.SECONDS)).as("the settle's release").isTrue();

    List<CounterStatus> during = assertTimeoutPreemptively(NO_HANG, meter::counters);

    assertThat(during)
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.detail())
                    .contains(
                        "a release of the counter's channel (the meter's close, left to the settle"
                            + " of the meter's timed read) held the books")
                    .doesNotContain("contention"));
    releaseReturns.countDown();
    holder.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(releases).as("released once").hasValue(1);
  }

  /**
   * Regression: a read across the meter's close that met the JVM failing (its third Error since its
   * probe) just as the close gave up waiting for the books, after the wait ran out and before the
   * close left the release to the settle, demoted the counter with a WARN saying figures fall back
   * to the estimator until a re-probe proves it live, which a closed meter never runs.
   */
  @Test
  void aReadMeetingTheJvmFailing_asTheMetersCloseGivesUpWaiting_isNotSaidToAwaitAReprobe()
      throws Exception {
    OutOfMemoryError heapGone = new OutOfMemoryError("Java heap space");
    List<Throwable> passed = aThirdErrorHangs(heapGone);
    AtomicBoolean first = theReadReturnsAsAWaitRunsOut();

    String log = CounterLogLevelsTest.logOf(() -> assertTimeoutPreemptively(NO_HANG, meter::close));

    assertThat(first).as("the close's wait ran out").isFalse();
    assertThat(passed).as("the JVM failing passes as it is").containsExactly(heapGone);
    assertThat(log)
        .doesNotContain("re-probe proves it live")
        .contains("its meter was closed meanwhile, so it is released and not re-probed");
    assertThat(releases).as("released once").hasValue(1);
  }

  /**
   * Regression: a hung read that returned, and settled, just as the meter's close gave up waiting
   * for the books (after its wait ran out, before it left the release to the settle) left the
   * release to a settle no one ran: the channel stayed unreleased for good.
   */
  @Test
  void aReadReturningAsTheMetersCloseGivesUpWaiting_stillHasItsCounterReleased() throws Exception {
    aReadHangs();
    AtomicBoolean first = theReadReturnsAsAWaitRunsOut();

    assertTimeoutPreemptively(NO_HANG, meter::close);

    assertThat(first).as("the close's wait ran out").isFalse();
    assertThat(releases).as("released once").hasValue(1);
  }

  /**
   * Regression: a meter's close that gave up waiting for a probe (one of its calls into a channel
   * hung) returned with every counter unreleased for good, the probe's end releasing nothing; and
   * an interrupt that came during that wait was swallowed.
   */
  @Test
  void aMeterClosedWhileItsProbeHangs_releasesItsCountersOnceTheProbeEnds() throws Exception {
    aProbeHangs(meter::probeNow);
    meter.closeWait(Duration.ofMillis(50));

    Thread.currentThread().interrupt();
    meter.close(); // on this thread, which is interrupted; bounded by the 50 ms wait
    boolean interruptKept = Thread.interrupted();

    assertThat(releases).as("not released under the hung probe").hasValue(0);
    theReadReturns();
    assertThat(releases).as("released once, as the probe ended").hasValue(1);
    assertThat(interruptKept).as("the interrupt kept for the caller").isTrue();
  }

  /**
   * Regression: a probe that ended after its meter's close gave up waiting for it, finding its
   * counter not live, logged a WARN that figures on its domain fall back to the estimator, where
   * the meter is closed and no figure is made to fall back for.
   */
  @Test
  void aProbeEndingAfterItsMeterClosed_doesNotSayFiguresFallBack() throws Exception {
    aProbeHangs(meter::probeNow);
    meter.closeWait(Duration.ofMillis(50));
    meter.close();
    cpu.freeze(); // so the probe, once it goes on, finds the counter not live

    String log =
        CounterLogLevelsTest.logOf(
            () -> {
              try {
                theReadReturns();
              } catch (InterruptedException e) {
                throw new AssertionError(e);
              }
            });

    assertThat(log).doesNotContain("fall back to the estimator");
    assertThat(meter.counters().getFirst().detail()).contains("its meter was closed");
    assertThat(releases).as("released once, as the probe ended").hasValue(1);
  }

  /**
   * Regression: a close interrupted while it waited for a probe to end lost the interrupt where a
   * counter's release then threw the JVM failing: thrown on from the releases, it skipped the line
   * that gave the caller back the flag its wait had taken.
   */
  @Test
  void aCloseInterruptedWhileAProbeRuns_keepsTheInterrupt_whenARelease_throwsTheJvmFailing()
      throws Exception {
    OutOfMemoryError heapGone = new OutOfMemoryError("Java heap space");
    releaseThrows.set(heapGone);
    aProbeHangs(meter::probeNow);
    Thread closer = Thread.currentThread();
    // The probe ends once the close waits for it (its interrupt taken by the wait that threw).
    Thread probeEnds =
        Thread.ofPlatform()
            .name("probe-ends")
            .start(
                () -> {
                  while (closer.getState() != Thread.State.TIMED_WAITING) {
                    Thread.onSpinWait();
                  }
                  readReturns.countDown();
                });

    Thread.currentThread().interrupt();
    Throwable thrown = catchThrowable(meter::close);
    boolean interruptKept = Thread.interrupted();
    probeEnds.join(TimeUnit.SECONDS.toMillis(10));

    assertThat(thrown).as("the JVM failing, thrown on").isSameAs(heapGone);
    assertThat(releases).as("released once").hasValue(1);
    assertThat(interruptKept).as("the interrupt kept for the caller").isTrue();
  }

  /**
   * Regression: a probe that a close gave up waiting for, and that then threw, lost its throw where
   * the release it ran as it ended threw the JVM failing: thrown from its finally, the release's
   * throw replaced the probe's. The probe's is thrown on, the release's added to it.
   */
  @Test
  void aProbeEndingInAFault_thatReleasesAClosedMeter_keepsItsFault_whenAReleaseFails()
      throws Exception {
    AssertionError probeFault = new AssertionError("the probe's own fault");
    OutOfMemoryError heapGone = new OutOfMemoryError("Java heap space");
    AtomicReference<Throwable> probeThrew = new AtomicReference<>();
    aProbeHangs(
        () -> {
          try {
            meter.probeNow();
          } catch (RuntimeException | Error e) {
            probeThrew.set(e);
          }
        });
    meter.closeWait(Duration.ofMillis(50));
    meter.close(); // gives up waiting: the counters are released as the probe ends
    releaseThrows.set(heapGone);
    nextIdleThrows.set(probeFault);

    theReadReturns();

    assertThat(releases).as("released once, as the probe ended").hasValue(1);
    assertThat(probeThrew.get())
        .as("the probe's own fault, thrown on")
        .isSameAs(probeFault)
        .satisfies(e -> assertThat(e.getSuppressed()).containsExactly(heapGone));
  }

  @Test
  void holdingClosesToTheStallBoundWhileAReadHangs_doesNotWaitForIt() throws Exception {
    aReadHangs();

    assertTimeoutPreemptively(NO_HANG, () -> clock.watch(meter));

    theReadReturns_andAfterAReprobeAServeAloneIsAReading("a serve alone after the read returned");
  }

  @Test
  void booksBusyWithoutARead_areNotBlamedOnARead_beforeOrAfterTheyAreFree() throws Exception {
    DomainLedger ledger = meter.ledger(CPU0);
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    ledger.beforeDisturbance(
        () -> {
          holding.countDown();
          try {
            letGo.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    holder = Thread.ofPlatform().name("busy-books").start(ledger::beginDisturbance);
    assertThat(holding.await(10, TimeUnit.SECONDS)).as("the books are held").isTrue();

    List<CounterStatus> during = assertTimeoutPreemptively(NO_HANG, meter::counters);
    ledger.beforeDisturbance(() -> {});
    letGo.countDown();
    holder.join(TimeUnit.SECONDS.toMillis(10));
    List<CounterStatus> after = meter.counters();
    ledger.endDisturbance();

    for (List<CounterStatus> said : List.of(during, after)) {
      assertThat(said)
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
                assertThat(s.detail())
                    .contains("the books were busy for over 50 ms")
                    .contains("by a probe's disturbance beginning, not in a read of the counter")
                    .doesNotContain("held the books");
              });
    }
  }

  @Test
  void servesBesideAReadThatNeverReturns_touchNothingOfTheCounter_andItIsReleasedOnceAfter()
      throws Exception {
    aReadHangs();
    int readsBefore = reads.get();

    for (int i = 0; i < 1_000; i++) {
      assertThat(serve()).isEqualTo(Energy.estimated(1_000));
    }
    meter.close();

    assertThat(reads.get())
        .as("no serve read the counter, so none opened anything")
        .isEqualTo(readsBefore);
    assertThat(OpenWindows.on(hanging.hardware())).as("no window left counted").isZero();
    assertThat(releases.get()).as("not released under the hung read").isZero();
    theReadReturns();
    assertThat(releases.get()).as("released once, by the read that held it").isEqualTo(1);
    meter.close();
    assertThat(releases.get()).isEqualTo(1);
  }

  @Test
  void servesOnManyThreadsBesideAReadThatNeverReturns_areEachTheEstimate_andLeaveNothingCounted()
      throws Exception {
    aReadHangs();
    List<Thread> serving = new ArrayList<>();
    List<Energy> figures = Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 8; t++) {
      serving.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < 50; i++) {
                      MeterWindow w = meter.open(Set.of(CPU0));
                      figures.add(w.close(1_000));
                    }
                  }));
    }
    for (Thread t : serving) {
      t.join(NO_HANG.toMillis());
      assertThat(t.isAlive()).as("a serving thread waited on the hung read").isFalse();
    }

    assertThat(figures).hasSize(400).containsOnly(Energy.estimated(1_000));
    assertThat(OpenWindows.on(hanging.hardware())).as("no window left counted").isZero();
    theReadReturns_andAfterAReprobeAServeAloneIsAReading("nothing the serves left overlaps");
  }
}
