package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;
import static org.meshjava.journal.SnapshotTest.assertRefused;
import static org.meshjava.journal.SnapshotTest.body;
import static org.meshjava.journal.SnapshotTest.get;
import static org.meshjava.journal.SnapshotTest.set;
import static org.meshjava.journal.SnapshotTest.signed;
import static org.meshjava.journal.SnapshotTest.with;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.jcp.LedgerState;
import org.meshjava.jcp.SpendLedger;

/**
 * A link whose debits went past 2^63 − 1 µJ (SPEC 30 §8) keeps saying so through a snapshot (SPEC
 * 60.8): restored without it, a link with a budget of 2^63 − 1 would read as exactly spent, and
 * admit again. Every other account keeps the four items an older build wrote and reads.
 */
class SnapshotDebitPastRangeTest {

  private static List<CborValue> accounts(CborMap body) {
    return ((CborArray) ((CborArray) get(body, "ledger")).items().get(2)).items();
  }

  private static CborMap withAccount(CborMap body, int i, CborValue account) {
    CborArray ledger = (CborArray) get(body, "ledger");
    CborArray accounts = set(ledger.items().get(2), i, account);
    return with(body, "ledger", set(ledger, 2, accounts));
  }

  /** The first account of {@code body} with debits past the range: 2^63 − 1 and a fifth item 1. */
  private static CborMap firstAccountPastRange(CborMap body) {
    List<CborValue> five = new ArrayList<>(((CborArray) accounts(body).get(0)).items());
    five.set(1, CborInt.of(Long.MAX_VALUE));
    five.add(CborInt.of(1));
    return withAccount(body, 0, new CborArray(five));
  }

  @Test
  void aDebitPastRange_opensAsSigned_andIsWrittenAgainAsItWas() throws Exception {
    CborMap body =
        firstAccountPastRange(body(Snapshot.sign(STEWARD, SnapshotTest.richState()).encoded()));
    SnapshotState back = Snapshot.open(signed(body), STEWARD_ID).state();
    LedgerState.Account first = back.ledger().accounts().get(0);
    assertThat(first.debitPastRange()).isTrue();
    assertThat(first.debitedUj()).isEqualTo(Long.MAX_VALUE);
    assertThat(back.ledger().accounts().subList(1, back.ledger().accounts().size()))
        .allSatisfy(a -> assertThat(a.debitPastRange()).isFalse());
    // Written again, only the marked account has a fifth item; the others keep the four an older
    // build reads.
    List<CborValue> written = accounts(body(Snapshot.sign(STEWARD, back).encoded()));
    assertThat(((CborArray) written.get(0)).items()).hasSize(5);
    for (CborValue other : written.subList(1, written.size())) {
      assertThat(((CborArray) other).items()).hasSize(4);
    }
    assertThat(SpendLedger.restore(back.ledger()).spend(first.link()).remainingUj(Long.MAX_VALUE))
        .isNegative();
  }

  @Test
  void aFifthItemThatIsNotOne_orBelowTheTop_isMalformed() throws Exception {
    CborMap body = body(Snapshot.sign(STEWARD, SnapshotTest.richState()).encoded());
    CborArray four = (CborArray) accounts(body).get(0);
    List<CborValue> five = new ArrayList<>(four.items());
    five.add(CborInt.of(1));
    // Debited below 2^63 − 1 with the flag: a figure that did not stop at the top.
    assertRefused(
        signed(withAccount(body, 0, new CborArray(five))), SnapshotException.Reason.MALFORMED);
    five.set(1, CborInt.of(Long.MAX_VALUE));
    assertThat(Snapshot.open(signed(withAccount(body, 0, new CborArray(five))), STEWARD_ID))
        .isNotNull();
    five.set(4, CborInt.of(2));
    assertRefused(
        signed(withAccount(body, 0, new CborArray(five))), SnapshotException.Reason.MALFORMED);
    five.set(4, CborInt.of(0));
    assertRefused(
        signed(withAccount(body, 0, new CborArray(five))), SnapshotException.Reason.MALFORMED);
    five.add(CborInt.of(1));
    assertRefused(
        signed(withAccount(body, 0, new CborArray(five))), SnapshotException.Reason.MALFORMED);
  }
}
