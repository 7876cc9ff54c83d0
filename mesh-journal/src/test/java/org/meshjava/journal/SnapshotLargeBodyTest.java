package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.journal.JournalHistory.OTHER;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;
import static org.meshjava.journal.SnapshotTest.assertRefused;
import static org.meshjava.journal.SnapshotTest.body;
import static org.meshjava.journal.SnapshotTest.get;
import static org.meshjava.journal.SnapshotTest.set;
import static org.meshjava.journal.SnapshotTest.signed;
import static org.meshjava.journal.SnapshotTest.with;

import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborMap;

/**
 * A snapshot whose body is past the size at which its digest is taken on another thread while the
 * body is decoded (a megabyte: here forty thousand receipts) opens exactly as a small one, and is
 * refused exactly as a small one: in particular an altered snapshot is refused for its signature
 * even when its content is also invalid, as when the signature was checked before the content.
 */
class SnapshotLargeBodyTest {
  private static final int RECEIPTS = 40_000;

  static SnapshotState largeState() throws Exception {
    SnapshotState s = SnapshotTest.richState();
    ReceiptIds ids = new ReceiptIds();
    for (long q = 0; q < RECEIPTS; q++) {
      ids.add(q, ReceiptIdsTest.id(q));
    }
    return new SnapshotState(
        s.position(),
        s.ledger(),
        s.revocations(),
        s.suspension(),
        s.lastSealed(),
        ids,
        s.open(),
        s.settled(),
        s.checkpoint(),
        s.chains(),
        s.authorisations(),
        s.revocationsReplayed());
  }

  @Test
  void aLargeSnapshot_opensToExactlyItsState_andItsEncoding() throws Exception {
    SnapshotState state = largeState();
    Snapshot signed = Snapshot.sign(STEWARD, state);
    byte[] file = signed.encoded();
    assertThat(file.length).isGreaterThan(1 << 20);
    Snapshot opened = Snapshot.open(file, STEWARD_ID);
    assertThat(Snapshot.canonicalBody(STEWARD_ID, opened.state()))
        .isEqualTo(Snapshot.canonicalBody(STEWARD_ID, state));
    assertThat(opened.state().receipts().packed()).isEqualTo(state.receipts().packed());
    assertThat(opened.encoded()).isEqualTo(file);
    assertThat(opened.tree().orElseThrow().root()).isEqualTo(signed.tree().orElseThrow().root());
    assertThat(opened.tree().orElseThrow().size()).isEqualTo(RECEIPTS);
    // What was opened does not follow later changes to the array it was opened from.
    file[file.length / 2] ^= 1;
    assertThat(opened.encoded()).isEqualTo(signed.encoded());
  }

  @Test
  void aLargeSnapshot_alteredOrSignedByAnother_failsItsSignature() throws Exception {
    byte[] good = Snapshot.sign(STEWARD, largeState()).encoded();
    byte[] flipped = good.clone();
    flipped[flipped.length / 2] ^= 1; // inside the receipt ids
    assertRefused(flipped, SnapshotException.Reason.BAD_SIGNATURE);
    byte[] body = body(good).encode();
    byte[] theirs =
        CborArray.of(CborBytes.of(body), CborBytes.of(OTHER.sign(SnapshotTest.message(body))))
            .encode();
    assertRefused(theirs, SnapshotException.Reason.BAD_SIGNATURE);
  }

  @Test
  void invalidContent_isRefusedForTheSignatureFirst_thenAsMalformed() throws Exception {
    for (SnapshotState state : new SnapshotState[] {largeState(), SnapshotTest.richState()}) {
      CborMap good = body(Snapshot.sign(STEWARD, state).encoded());
      // Receipt ids that are not whole ids: content a decoder refuses after the signature.
      CborMap ragged =
          with(
              good,
              "receipts",
              set(get(good, "receipts"), 1, CborBytes.of(new byte[RECEIPTS * 32 + 1])));
      byte[] raggedBody = ragged.encode();
      byte[] forged =
          CborArray.of(
                  CborBytes.of(raggedBody),
                  CborBytes.of(OTHER.sign(SnapshotTest.message(raggedBody))))
              .encode();
      assertRefused(forged, SnapshotException.Reason.BAD_SIGNATURE);
      assertRefused(signed(ragged), SnapshotException.Reason.MALFORMED);
    }
  }

  /**
   * A large snapshot's digest is taken on another thread; a start on an interrupted thread still
   * waits for it (a fraction of a second) and opens the snapshot, and the interrupt stays set for
   * the caller; on a thread not interrupted, it sets none.
   */
  @Test
  void aLargeSnapshotOpenedOnAnInterruptedThread_opens_andKeepsTheInterrupt() throws Exception {
    byte[] file = Snapshot.sign(STEWARD, largeState()).encoded();
    Snapshot.open(file, STEWARD_ID);
    assertThat(Thread.currentThread().isInterrupted()).as("an open interrupts nobody").isFalse();
    Thread.currentThread().interrupt();
    Snapshot opened;
    boolean stillInterrupted;
    try {
      opened = Snapshot.open(file, STEWARD_ID);
    } finally {
      stillInterrupted = Thread.interrupted(); // clears it, for JUnit's sake
    }

    assertThat(opened.encoded()).isEqualTo(file);
    assertThat(stillInterrupted).as("the interrupt is kept set").isTrue();
  }
}
