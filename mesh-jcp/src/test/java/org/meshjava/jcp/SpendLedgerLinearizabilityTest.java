package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;

/**
 * Model checking of the gate's atomic step (issue 21 item 5): Lincheck explores interleavings of
 * reserve / settle (the debit) / release on one two-link chain and checks every outcome against
 * {@link Spec}, a plain sequential reading of SPEC.md 30 §4 step 8, debit and release. The leaf's
 * budget is one and a half ceilings, so two reserves race for the only ceiling, and a settle that
 * debits little gives one back; those are the interleavings that matter. (The harness orders the
 * operations on one nonce, so a nonce presented twice at once is left to the threaded tests.)
 *
 * <p>The race of two reserves for the last ceiling (and its check against a planted check-then-act
 * reserve) runs by default: a reserve that reads the remaining budget before taking the ledger's
 * lock is caught by it and by no other default test, since {@link SettleRaceTest}'s seam sits
 * inside the lock, after the budget's check. The explorations of reserve, settle and release
 * together run behind {@code -Pslow}: planted one at a time in the ledger, a settle or release that
 * lets go of its lock between its read and its write, a settle that keeps the unused ceiling, one
 * that leaves the reservation held and a reservation settled twice were each caught by a faster
 * default test ({@link SettleRaceTest}, in milliseconds, or {@link DebitTest}), while the small
 * exploration that ran by default (17 s of a CI run, a minute at load 20) caught neither the lock
 * let go in settle nor the one in release.
 */
@Param(name = "nonce", gen = IntGen.class, conf = "1:3")
@Param(name = "debit", gen = IntGen.class, conf = "0:1500")
@Param(name = "link", gen = IntGen.class, conf = "0:1")
public class SpendLedgerLinearizabilityTest {
  static final long CEILING = 1_000;
  static final GrantId ROOT = GrantId.fromHex("01".repeat(32));
  static final GrantId LEAF = GrantId.fromHex("02".repeat(32));
  static final List<LinkBudget> LINKS =
      List.of(new LinkBudget(ROOT, 5 * CEILING), new LinkBudget(LEAF, 3 * CEILING / 2));

  private final SpendLedger ledger = SpendLedger.inMemory();
  private final Map<Integer, Reservation> open = new ConcurrentHashMap<>();

  /**
   * The harness's own lock per nonce: a caller holds its reservation only once {@code reserve}
   * returned it, so settling or releasing a nonce waits for that; serves of different nonces, which
   * race for the same budget, are not ordered by it.
   */
  private final Object[] nonceLocks = {new Object(), new Object(), new Object(), new Object()};

  static PresentationNonce nonce(int n) {
    byte[] b = new byte[PresentationNonce.LENGTH];
    b[0] = (byte) n;
    return PresentationNonce.of(b);
  }

  @Operation
  public String reserve(@Param(name = "nonce") int n) {
    synchronized (nonceLocks[n]) {
      try {
        open.put(n, ledger.reserve(LEAF, nonce(n), LINKS, CEILING));
        return "reserved";
      } catch (GrantRefusedException e) {
        return e.label().name();
      }
    }
  }

  @Operation
  public String settle(@Param(name = "nonce") int n, @Param(name = "debit") int debitUj) {
    synchronized (nonceLocks[n]) {
      Reservation r = open.remove(n);
      if (r == null) {
        return "none";
      }
      StringBuilder out = new StringBuilder();
      for (LinkSpend s : ledger.settle(r, debitUj)) {
        out.append(s.debitedUj()).append('/').append(s.reservedUj()).append(' ');
      }
      return out.toString();
    }
  }

  @Operation
  public String release(@Param(name = "nonce") int n) {
    synchronized (nonceLocks[n]) {
      Reservation r = open.remove(n);
      if (r == null) {
        return "none";
      }
      ledger.release(r);
      return "released";
    }
  }

  /**
   * One link's spend. Each read is atomic for its link; two links read one after the other are not
   * one snapshot (Lincheck finds the interleaving), so each link is its own operation.
   */
  @Operation
  public String spend(@Param(name = "link") int link) {
    LinkSpend s = ledger.spend(LINKS.get(link).link());
    return s.debitedUj() + "/" + s.reservedUj();
  }

  /** The sequential specification: one thread, the rules as SPEC.md states them. */
  public static final class Spec {
    private final Set<Integer> spent = new HashSet<>();
    private final Set<Integer> reserved = new HashSet<>();
    private final Map<GrantId, long[]> accounts = new HashMap<>();

    private long[] account(GrantId link) {
      return accounts.computeIfAbsent(link, k -> new long[2]);
    }

    public String reserve(int n) {
      if (spent.contains(n)) {
        return DenialLabel.PRESENTATION_SPENT.name();
      }
      for (LinkBudget l : LINKS) {
        long[] a = account(l.link());
        if (l.budgetUj() - a[0] - a[1] < CEILING) {
          return DenialLabel.BUDGET_EXHAUSTED.name();
        }
      }
      spent.add(n);
      reserved.add(n);
      LINKS.forEach(l -> account(l.link())[1] += CEILING);
      return "reserved";
    }

    public String settle(int n, int debitUj) {
      if (!reserved.remove(n)) {
        return "none";
      }
      StringBuilder out = new StringBuilder();
      for (LinkBudget l : LINKS) {
        long[] a = account(l.link());
        a[1] -= CEILING;
        a[0] += debitUj;
        out.append(a[0]).append('/').append(a[1]).append(' ');
      }
      return out.toString();
    }

    public String release(int n) {
      if (!reserved.remove(n)) {
        return "none";
      }
      LINKS.forEach(l -> account(l.link())[1] -= CEILING);
      return "released";
    }

    public String spend(int link) {
      long[] a = account(LINKS.get(link).link());
      return a[0] + "/" + a[1];
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Spec s
          && s.spent.equals(spent)
          && s.reserved.equals(reserved)
          && snapshot().equals(s.snapshot());
    }

    @Override
    public int hashCode() {
      return spent.hashCode() * 31 + snapshot().hashCode();
    }

    private List<String> snapshot() {
      List<String> out = new ArrayList<>();
      for (LinkBudget l : LINKS) {
        long[] a = accounts.getOrDefault(l.link(), new long[2]);
        out.add(a[0] + "/" + a[1]);
      }
      return out;
    }
  }

  @Test
  @Tag("slow")
  void reserveSettleRelease_onOneChain_areLinearizable_small() {
    new ModelCheckingOptions()
        .sequentialSpecification(Spec.class)
        .iterations(6)
        .invocationsPerIteration(80)
        .threads(3)
        .actorsPerThread(2)
        .actorsBefore(0)
        .check(SpendLedgerLinearizabilityTest.class);
  }

  /**
   * Presentations racing for the last ceiling, and nothing else: two threads reserve (and read the
   * spend) on one chain whose leaf holds one and a half ceilings. The full harness above spreads
   * its invocations over settles and releases too, and in the default budget it did not reach a
   * race planted between reserve's check and its act (issue 21 item 5); here every scenario is
   * about that race, and a nonce presented twice at once is explored as well.
   */
  @Param(name = "nonce", gen = IntGen.class, conf = "1:3")
  @Param(name = "link", gen = IntGen.class, conf = "0:1")
  public static class ReserveRace {
    private final SpendLedger ledger = newLedger();

    /** The ledger under test. */
    SpendLedger newLedger() {
      return SpendLedger.inMemory();
    }

    /** Presents nonce {@code n} for one ceiling. */
    @Operation
    public String reserve(@Param(name = "nonce") int n) {
      try {
        ledger.reserve(LEAF, nonce(n), LINKS, CEILING);
        return "reserved";
      } catch (GrantRefusedException e) {
        return e.label().name();
      }
    }

    /** One link's spend. */
    @Operation
    public String spend(@Param(name = "link") int link) {
      LinkSpend s = ledger.spend(LINKS.get(link).link());
      return s.debitedUj() + "/" + s.reservedUj();
    }
  }

  /** {@link ReserveRace} over {@link CheckThenActLedger}, whose reserve checks, lets go, acts. */
  public static final class RacyReserveRace extends ReserveRace {
    @Override
    SpendLedger newLedger() {
      return new CheckThenActLedger();
    }
  }

  /**
   * Two scenarios of 50 interleavings each: the planted race below is caught in the first. Four of
   * 200 cost 23 s of a two-core CI run (Lincheck's start, some 7 s of it, is paid whatever the
   * budget); {@code -Pslow} explores reserve, settle and release together at length.
   */
  private static ModelCheckingOptions reserveRace() {
    return new ModelCheckingOptions()
        .sequentialSpecification(Spec.class)
        .iterations(2)
        .invocationsPerIteration(50)
        .threads(2)
        .actorsPerThread(2)
        .actorsBefore(0);
  }

  @Test
  void reserve_racingForTheLastCeiling_isLinearizable() {
    reserveRace().check(ReserveRace.class);
  }

  @Test
  void modelCheck_findsAPlantedCheckThenActRace_inReserve() {
    // A check that cannot fail proves nothing: the same exploration must reject a planted race.
    // Shrinking the failing scenario to its smallest (Lincheck's default) costs more than the
    // search that found it, and only the failure matters here.
    assertThatThrownBy(
            () -> reserveRace().minimizeFailedScenario(false).check(RacyReserveRace.class))
        .isInstanceOf(LincheckAssertionError.class);
  }

  @Test
  @Tag("slow")
  void reserveSettleRelease_onOneChain_areLinearizable_long() {
    new ModelCheckingOptions()
        .sequentialSpecification(Spec.class)
        .iterations(50)
        .invocationsPerIteration(1_000)
        .threads(3)
        .actorsPerThread(3)
        .check(SpendLedgerLinearizabilityTest.class);
  }
}
