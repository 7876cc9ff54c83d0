package org.meshjava.energy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The windows of the whole process, whichever meter holds them, open on each hardware counter
 * ({@link EnergyChannel#hardware()}). Two meters (stewards that discovered with different options)
 * read one counter through channels of their own, and each splits the energy it reads among its own
 * windows: without a count across them, a serve alone in each meter's books took the whole
 * counter's delta in both, and the figures summed to twice what the counter drew. A ledger splits
 * each segment among this count (never fewer than its own open windows), so the shares of every
 * meter's windows on a counter add up to no more than its delta. An entry lives only while a window
 * is open on its counter.
 *
 * <p>Each window is counted with its age ({@link Counted}), so a window open longer than {@link
 * DomainLedger#STALE_WINDOW_NANOS} is counted out at the next read of its counter by any meter of
 * the process ({@link #expireStale}), whether or not the meter that opened it is still open: a
 * window lost in a meter since closed would otherwise be counted for the life of the process, and
 * every later window on the counter overlapped (§3.3). The windows on a counter are kept oldest
 * first for each clock that ages them (one, {@link ProbeClock#SYSTEM}, outside tests), so a read
 * looks at the oldest alone and costs the same however many windows are open: hundreds of serves
 * open at once made every open and close scan them all, under this lock, for each read.
 *
 * <p>Thread-safe. The lock is a leaf: no clock, ledger or logger is called while it is held.
 */
final class OpenWindows {
  private static final Object LOCK = new Object();
  // Guarded by LOCK.
  private static final Map<Object, OnCounter> OPEN = new HashMap<>();

  // Run as another owner is about to be told of a stale window counted out; a no-op but in tests
  // (an allocation failing there, which no fake can cause).
  private static volatile Runnable beforeTellingOwner = () -> {};

  // Run as an owner's windows counted out elsewhere are copied for it; a no-op but in tests (an
  // allocation failing there, which no fake can cause).
  private static volatile Runnable beforeHandingOver = () -> {};

  private OpenWindows() {}

  /** Runs {@code hook} before each owner is told of a window another's read counts out; tests. */
  static void beforeTellingOwner(Runnable hook) {
    beforeTellingOwner = Objects.requireNonNull(hook, "hook");
  }

  /** Runs {@code hook} before an owner's windows counted out elsewhere are copied for it; tests. */
  static void beforeHandingOver(Runnable hook) {
    beforeHandingOver = Objects.requireNonNull(hook, "hook");
  }

  /**
   * The windows open on one counter, by the clock that ages them: one clock outside tests, so a
   * list looked through beats a map made at every first open. Guarded by LOCK.
   */
  private static final class OnCounter {
    private int count;
    private final List<ByAge> byClock = new ArrayList<>(1);

    @Nullable ByAge byClock(ProbeClock clock) {
      for (ByAge b : byClock) {
        if (b.clock == clock) {
          return b;
        }
      }
      return null;
    }
  }

  /**
   * Windows aged by one clock, linked oldest to youngest by their openings. Guarded by LOCK.
   * Bringing every opening later than a reading back to it (a step back of the clock) keeps the
   * order, so it is done from the youngest end and stops at the first not later.
   */
  private static final class ByAge {
    private final ProbeClock clock;
    private @Nullable Counted oldest;
    private @Nullable Counted youngest;

    ByAge(ProbeClock clock) {
      this.clock = clock;
    }

    /** Links {@code c} in by its opening, from the youngest end (openings come nearly in order). */
    void add(Counted c) {
      Counted after = youngest;
      while (after != null && after.openedNanos > c.openedNanos) {
        after = after.older;
      }
      c.older = after;
      c.younger = after == null ? oldest : after.younger;
      if (c.older == null) {
        oldest = c;
      } else {
        c.older.younger = c;
      }
      if (c.younger == null) {
        youngest = c;
      } else {
        c.younger.older = c;
      }
    }

    void remove(Counted c) {
      if (c.older == null) {
        oldest = c.younger;
      } else {
        c.older.younger = c.younger;
      }
      if (c.younger == null) {
        youngest = c.older;
      } else {
        c.younger.older = c.older;
      }
      c.older = null;
      c.younger = null;
    }

    boolean isEmpty() {
      return oldest == null;
    }
  }

  /**
   * Whose windows these are: the windows of an owner that another owner's read counts out are kept
   * for the owner to take ({@link #countedOutElsewhere}), so that it finds them without looking at
   * each of its windows at every read.
   */
  static final class Owner {
    // Guarded by LOCK.
    private final List<Counted> countedOutElsewhere = new ArrayList<>();
    // Whether countedOutElsewhere may hold any: read without the lock, so that the owner's reads
    // take no lock for it while none was counted out (nearly always).
    private volatile boolean pending;
  }

  /**
   * One window's place in the count of its counter. Its age is measured by the clock of the meter
   * that opened it, so a meter closed since can still have it aged.
   */
  static final class Counted {
    private final Object hardware;
    private final ProbeClock clock;
    private final Owner owner;
    private final int openOnCounter;
    // Guarded by LOCK. Brought back to a reading earlier than it (a step back of the clock): a
    // window lost before the step is aged from the step, never from a time still ahead.
    private long openedNanos;
    // Guarded by LOCK: its neighbours in its ByAge while it is in.
    private @Nullable Counted older;
    private @Nullable Counted younger;
    // Guarded by LOCK.
    private boolean in = true;

    private Counted(
        Object hardware, ProbeClock clock, Owner owner, long openedNanos, int openOnCounter) {
      this.hardware = hardware;
      this.clock = clock;
      this.owner = owner;
      this.openedNanos = openedNanos;
      this.openOnCounter = openOnCounter;
    }

    /** How many windows were open on the counter when this one was counted in, itself included. */
    int openOnCounter() {
      return openOnCounter;
    }
  }

  /**
   * A window of {@code owner} opened on {@code hardware} at {@code nowNanos} of {@code clock};
   * returns its place in the count, which knows how many are open there now, this one included.
   */
  static Counted opened(Object hardware, ProbeClock clock, Owner owner, long nowNanos) {
    Objects.requireNonNull(hardware, "hardware");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(owner, "owner");
    synchronized (LOCK) {
      OnCounter on = OPEN.computeIfAbsent(hardware, h -> new OnCounter());
      Counted c = new Counted(hardware, clock, owner, nowNanos, on.count + 1);
      ByAge byAge = on.byClock(clock);
      if (byAge == null) {
        byAge = new ByAge(clock);
        on.byClock.add(byAge);
      }
      byAge.add(c);
      on.count++;
      return c;
    }
  }

  /** {@code window} is gone; returns whether it was still counted (false the second time). */
  static boolean closed(Counted window) {
    synchronized (LOCK) {
      return countOut(window);
    }
  }

  private static boolean countOut(Counted window) {
    if (!window.in) {
      return false;
    }
    window.in = false;
    OnCounter on = OPEN.get(window.hardware);
    if (on != null) {
      ByAge byAge = on.byClock(window.clock);
      if (byAge != null) {
        byAge.remove(window);
        if (byAge.isEmpty()) {
          on.byClock.remove(byAge);
        }
      }
      on.count--;
      if (on.count == 0) {
        OPEN.remove(window.hardware);
      }
    }
    return true;
  }

  /** How many windows are open on {@code hardware}, in every meter of the process. */
  static int on(Object hardware) {
    synchronized (LOCK) {
      OnCounter on = OPEN.get(hardware);
      return on == null ? 0 : on.count;
    }
  }

  /**
   * Counts out every window on {@code hardware} open longer than {@link
   * DomainLedger#STALE_WINDOW_NANOS} by its own meter's clock, and returns them with their ages:
   * {@code owner}'s own, and every other owner's, which that owner also finds in {@link
   * #countedOutElsewhere}. A window on {@code clock} is aged at {@code nowNanos}, the caller's own
   * reading of it: read again, a window of the caller's crossing the hour between the two readings
   * would be counted out here as another meter's. Every other clock is read once, outside the lock.
   */
  static List<Expired> expireStale(Object hardware, ProbeClock clock, Owner owner, long nowNanos) {
    List<ProbeClock> others = List.of();
    List<Expired> expired = new ArrayList<>(0);
    synchronized (LOCK) {
      OnCounter on = OPEN.get(hardware);
      if (on == null) {
        return List.of();
      }
      for (ByAge b : on.byClock) {
        if (b.clock != clock) {
          others = others.isEmpty() ? new ArrayList<>() : others;
          others.add(b.clock);
        }
      }
      expire(on, clock, nowNanos, owner, expired);
    }
    for (ProbeClock c : others) {
      long now = c.nanoTime();
      synchronized (LOCK) {
        OnCounter on = OPEN.get(hardware);
        if (on != null) {
          expire(on, c, now, owner, expired);
        }
      }
    }
    return expired;
  }

  /** Ages the windows on {@code clock} at {@code nowNanos}, counting out those gone stale. */
  private static void expire(
      OnCounter on, ProbeClock clock, long nowNanos, Owner reader, List<Expired> expired) {
    ByAge byAge = on.byClock(clock);
    if (byAge == null) {
      return;
    }
    for (Counted c = byAge.youngest; c != null && c.openedNanos > nowNanos; c = c.older) {
      c.openedNanos = nowNanos;
    }
    Counted oldest = byAge.oldest;
    while (oldest != null && nowNanos - oldest.openedNanos >= DomainLedger.STALE_WINDOW_NANOS) {
      long age = nowNanos - oldest.openedNanos;
      // What can fail (an allocation) before the count changes: a window counted out that its
      // owner was never told of, or that its reader never got back, stayed in its ledger for good,
      // and every later serve there was overlapped. Thrown before, it is counted out at a next
      // read.
      expired.add(new Expired(oldest, age));
      if (oldest.owner != reader) {
        beforeTellingOwner.run();
        oldest.owner.countedOutElsewhere.add(oldest);
      }
      countOut(oldest);
      if (oldest.owner != reader) {
        oldest.owner.pending = true;
      }
      oldest = byAge.oldest;
    }
  }

  /**
   * The windows of {@code owner} that another owner's read counted out since the last call; each is
   * returned once.
   */
  static List<Counted> countedOutElsewhere(Owner owner) {
    if (!owner.pending) {
      return List.of();
    }
    synchronized (LOCK) {
      // The copy first, the only step that can fail (an allocation): thrown there, the windows are
      // still kept and still pending, handed over at the owner's next read. Marked first, they
      // stayed in the list unseen until another read counted out one more of the owner's windows.
      beforeHandingOver.run();
      List<Counted> out = List.copyOf(owner.countedOutElsewhere);
      owner.countedOutElsewhere.clear();
      owner.pending = false;
      return out;
    }
  }

  /** Whether {@code window} is still in its counter's count: opened, and not yet counted out. */
  static boolean isCounted(Counted window) {
    synchronized (LOCK) {
      return window.in;
    }
  }

  /** Whether {@code window} belongs to {@code owner}. */
  static boolean isOf(Counted window, Owner owner) {
    return window.owner == owner;
  }

  /** A window counted out for its age, {@code ageNanos} by its own meter's clock. */
  record Expired(Counted window, long ageNanos) {}
}
