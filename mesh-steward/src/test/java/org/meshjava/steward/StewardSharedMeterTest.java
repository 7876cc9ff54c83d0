package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Provenance;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.CounterMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.receipt.ChainHead;

/**
 * Two stewards of one process that discover their meter with equal options share one meter: their
 * overlapping serves are split in one set of books rather than each graded a lone reading of the
 * same package, and the meter closes with the last steward. The counter is a fake powercap tree
 * ({@link FakePowercap}) that discovery proves live as it would a machine's.
 */
@Timeout(60)
class StewardSharedMeterTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);

  @TempDir Path dir;
  final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  /**
   * When two serves meet: each waits for the other to be inside its engine, then works {@code
   * workMs}. Replaced between attempts.
   */
  record Meeting(CountDownLatch together, long workMs) {}

  /** The reference engine on package 0 alone, the package the fake tree has a counter for. */
  static StewardGrantTest.Delegating onPackage0(CountDownLatch together) {
    return onPackage0(new AtomicReference<>(new Meeting(together, 300)));
  }

  /** The same, meeting as {@code meeting} says at each serve. */
  static StewardGrantTest.Delegating onPackage0(AtomicReference<Meeting> meeting) {
    return new StewardGrantTest.Delegating(ReferenceEngine.builder().name("ref").build()) {
      @Override
      public Set<EnergyDomain> domains() {
        return Set.of(CPU0);
      }

      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
        // Each serve waits for the other to be inside its engine, so their windows overlap, then
        // works long enough for the counter to resolve the window (ten update periods and more).
        Meeting m = meeting.get();
        m.together().countDown();
        try {
          if (!m.together().await(20, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the other serve never began");
          }
          Thread.sleep(m.workMs());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return super.serve(r, p);
      }
    };
  }

  Steward discovering(FakePowercap powercap, CountDownLatch together) {
    return discovering(powercap, new AtomicReference<>(new Meeting(together, 300)));
  }

  Steward discovering(FakePowercap powercap, AtomicReference<Meeting> meeting) {
    return Steward.ephemeral().discovery(powercap.options()).backend(onPackage0(meeting)).build();
  }

  /**
   * A steward whose discovery proved the fake counter live. A probe on a loaded machine can find
   * the writer held off the CPU for a whole sample (this test is about sharing, not liveness), so a
   * steward whose probe failed is closed and another built, a few times at most.
   */
  Steward provedLive(FakePowercap powercap, CountDownLatch together) {
    return provedLive(powercap, new AtomicReference<>(new Meeting(together, 300)));
  }

  /** The same, meeting as {@code meeting} says. */
  Steward provedLive(FakePowercap powercap, AtomicReference<Meeting> meeting) {
    for (int attempt = 1; ; attempt++) {
      Steward s = discovering(powercap, meeting);
      var found = s.meterDiscovery().orElseThrow();
      if (found.hardwareGraded() || attempt == 5) {
        assertThat(found.hardwareGraded())
            .as("the fake counter is proved live: %s", found.counters())
            .isTrue();
        return s;
      }
      s.close();
    }
  }

  /** The steward's meter, which {@link #provedLive} proved. */
  static CounterMeter hardwareMeter(Steward s) {
    return (CounterMeter) s.meter();
  }

  // The defect: each steward discovered a meter of its own over the same package, each meter saw a
  // lone window, and both serves were graded HwShunt for the same joules. Split in one set of
  // books, each is a share of the counter's reading (ModelBased). The fake host has package 0 alone
  // (FakePowercap), so no package of the host running the test leaves the window the estimate,
  // which also is not HwShunt and so hid the split on a host of two packages. A loaded machine can
  // hold the fake counter's writer off long enough to stall it, or stretch the update period the
  // probe learnt past what the serves' work spans, so a pair graded the estimate is served again,
  // working twice as long, a few times at most; no serve is ever a lone reading.
  @Test
  void overlappingServesOfTwoStewardsDiscoveringOneMachine_areSplit_neitherIsHwShunt()
      throws Exception {
    try (FakePowercap powercap = new FakePowercap(dir.resolve("powercap"))) {
      powercap.power();
      AtomicReference<Meeting> meeting =
          new AtomicReference<>(new Meeting(new CountDownLatch(2), 300));
      try (Steward first = provedLive(powercap, meeting);
          Steward second = discovering(powercap, meeting)) {
        assertThat(second.meter()).isSameAs(first.meter());
        assertThat(second.meterDiscovery()).isEqualTo(first.meterDiscovery());
        List<List<Provenance>> grades = new ArrayList<>();
        for (int attempt = 0; attempt < 4; attempt++) {
          meeting.set(new Meeting(new CountDownLatch(2), 300L << attempt));
          ServeRequest a = GrantFixture.request("first steward " + attempt, 4, 70_000);
          ServeRequest b = GrantFixture.request("second steward " + attempt, 4, 70_000);
          Future<ServeResult> onFirst =
              threads.submit(() -> first.serve(a, GrantFixture.payload(a)));
          Future<ServeResult> onSecond =
              threads.submit(() -> second.serve(b, GrantFixture.payload(b)));
          Provenance firstGrade = onFirst.get(30, TimeUnit.SECONDS).receipt().energy().provenance();
          Provenance secondGrade =
              onSecond.get(30, TimeUnit.SECONDS).receipt().energy().provenance();
          grades.add(List.of(firstGrade, secondGrade));
          assertThat(grades.getLast())
              .as("overlapped serves' grades")
              .doesNotContain(Provenance.HwShunt);
          if (firstGrade != Provenance.Estimator && secondGrade != Provenance.Estimator) {
            break;
          }
        }

        assertThat(grades.getLast())
            .as("first and second steward's overlapped serves, each attempt: %s", grades)
            .containsExactly(Provenance.ModelBased, Provenance.ModelBased);
      }
    }
  }

  @Test
  void sharedMeter_staysOpenWhileOneStewardRemains_andClosesWithTheLast() throws Exception {
    try (FakePowercap powercap = new FakePowercap(dir.resolve("powercap"))) {
      powercap.power();
      CountDownLatch unused = new CountDownLatch(0);
      Steward first = provedLive(powercap, unused);
      Steward second = discovering(powercap, unused);
      CounterMeter meter = hardwareMeter(first);
      assertThat(second.meter()).isSameAs(meter);

      first.close();
      // Open, the meter probes when asked: the stopped counter is found frozen.
      powercap.unplug();
      meter.probeNow();
      assertThat(meter.liveDomains()).as("still open for the second steward").isEmpty();

      second.close();
      // Closed, it probes no more: the counter, advancing again, keeps its frozen verdict.
      powercap.power();
      meter.probeNow();
      assertThat(meter.liveDomains()).as("closed with the last steward").isEmpty();

      try (Steward later = discovering(powercap, unused)) {
        assertThat(later.meter()).as("a later steward discovers anew").isNotSameAs(meter);
      }
    }
  }

  @Test
  void buildThatFailsAfterTakingItsLease_releasesIt() throws Exception {
    try (FakePowercap powercap = new FakePowercap(dir.resolve("powercap"))) {
      powercap.power();
      CountDownLatch unused = new CountDownLatch(0);
      Steward first = provedLive(powercap, unused);
      CounterMeter meter = hardwareMeter(first);
      // The steward's constructor asks whether its journal is durable, after the lease is taken.
      IllegalStateException refused = new IllegalStateException("durable() failed");
      ForwardingJournal failing =
          new ForwardingJournal(new InMemoryJournal()) {
            @Override
            public boolean durable() {
              throw refused;
            }
          };
      assertThatThrownBy(
              () ->
                  Steward.builder(SigningKey.generate())
                      .chainHead(ChainHead.GENESIS)
                      .journal(failing)
                      .discovery(powercap.options())
                      .backend(onPackage0(unused))
                      .build())
          .isSameAs(refused);

      first.close();
      // Had the failed build kept its lease, the meter would still be open, and would find the
      // stopped counter frozen; closed with the first steward, it probes no more.
      powercap.unplug();
      meter.probeNow();
      assertThat(meter.liveDomains())
          .as("closed: the failed build held no lease: %s", meter.counters())
          .isNotEmpty();
    }
  }
}
