package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many owners open, close, age and drain windows on one counter at once, on two clocks, while the
 * shared time jumps forward and sometimes steps back: every window leaves the count exactly once
 * (its close, or one read's expiry), every window another owner's read counted out reaches its own
 * owner's inbox exactly once, and the count ends at zero. Fake time, no sleeps.
 */
class OpenWindowsRaceTest {
  private static final int OWNERS = 8;
  private static final int STEPS = 3_000;

  /** A clock over a shared time, at a fixed offset; safe to read from any thread. */
  private record OffsetClock(AtomicLong time, long offsetNanos) implements ProbeClock {
    @Override
    public long nanoTime() {
      return time.get() + offsetNanos;
    }

    @Override
    public void burnUntil(long deadlineNanos) {}

    @Override
    public void idleUntil(long deadlineNanos) {}
  }

  @Test
  void concurrentOpensClosesAndReads_countEachWindowOutOnce_andFillEachInboxOnce()
      throws Exception {
    Object hardware = new Object();
    AtomicLong time = new AtomicLong(1_000_000_000L);
    ProbeClock[] clocks = {new OffsetClock(time, 0), new OffsetClock(time, -7 * 60_000_000_000L)};
    OpenWindows.Owner[] owners = new OpenWindows.Owner[OWNERS];
    for (int i = 0; i < OWNERS; i++) {
      owners[i] = new OpenWindows.Owner();
    }
    Map<OpenWindows.Counted, Integer> ownerOf = new ConcurrentHashMap<>();
    Map<OpenWindows.Counted, AtomicInteger> countedOut = new ConcurrentHashMap<>();
    Map<OpenWindows.Counted, Integer> expiredBy = new ConcurrentHashMap<>();
    Map<OpenWindows.Counted, AtomicInteger> inInbox = new ConcurrentHashMap<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    CyclicBarrier start = new CyclicBarrier(OWNERS);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < OWNERS; t++) {
      int me = t;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      ProbeClock clock = clocks[me % 2];
                      OpenWindows.Owner owner = owners[me];
                      SplittableRandom random = new SplittableRandom(me);
                      List<OpenWindows.Counted> mine = new ArrayList<>();
                      start.await();
                      for (int step = 0; step < STEPS; step++) {
                        int what = random.nextInt(10);
                        if (what < 4) {
                          OpenWindows.Counted c =
                              OpenWindows.opened(hardware, clock, owner, clock.nanoTime());
                          ownerOf.put(c, me);
                          assertThat(c.openOnCounter()).isPositive();
                          mine.add(c);
                        } else if (what < 6 && !mine.isEmpty()) {
                          OpenWindows.Counted c = mine.remove(random.nextInt(mine.size()));
                          if (OpenWindows.closed(c)) {
                            tally(countedOut, c);
                          }
                        } else if (what < 9) {
                          for (OpenWindows.Expired e :
                              OpenWindows.expireStale(hardware, clock, owner, clock.nanoTime())) {
                            assertThat(e.ageNanos())
                                .isGreaterThanOrEqualTo(DomainLedger.STALE_WINDOW_NANOS);
                            tally(countedOut, e.window());
                            expiredBy.put(e.window(), me);
                          }
                          for (OpenWindows.Counted c : OpenWindows.countedOutElsewhere(owner)) {
                            tally(inInbox, c);
                          }
                        } else {
                          // Time mostly jumps forward, by up to 6 min; one jump in 20 is back.
                          long jump = random.nextLong(360_000_000_000L);
                          time.addAndGet(random.nextInt(20) == 0 ? -jump / 3 : jump / 10);
                        }
                      }
                      for (OpenWindows.Counted c : mine) {
                        if (OpenWindows.closed(c)) {
                          tally(countedOut, c);
                        }
                      }
                    } catch (Throwable e) {
                      failures.add(e);
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failures).isEmpty();
    for (int i = 0; i < OWNERS; i++) {
      for (OpenWindows.Counted c : OpenWindows.countedOutElsewhere(owners[i])) {
        tally(inInbox, c);
      }
    }
    assertThat(OpenWindows.on(hardware)).isZero();
    assertThat(expiredBy).as("some windows must expire for the run to mean anything").isNotEmpty();
    assertThat(countedOut.keySet()).containsExactlyInAnyOrderElementsOf(ownerOf.keySet());
    int elsewhere = 0;
    for (Map.Entry<OpenWindows.Counted, AtomicInteger> e : countedOut.entrySet()) {
      OpenWindows.Counted c = e.getKey();
      assertThat(e.getValue().get()).as("times counted out").isEqualTo(1);
      Integer by = expiredBy.get(c);
      boolean byAnother = by != null && !by.equals(ownerOf.get(c));
      elsewhere += byAnother ? 1 : 0;
      assertThat(inInbox.getOrDefault(c, new AtomicInteger()).get())
          .as("times in its owner's inbox")
          .isEqualTo(byAnother ? 1 : 0);
    }
    assertThat(elsewhere).as("some windows must be counted out by another owner").isPositive();
  }

  /** Counts one more for {@code window}; a window may be counted out before its opener files it. */
  private static void tally(
      Map<OpenWindows.Counted, AtomicInteger> tally, OpenWindows.Counted window) {
    tally.computeIfAbsent(window, w -> new AtomicInteger()).incrementAndGet();
  }
}
