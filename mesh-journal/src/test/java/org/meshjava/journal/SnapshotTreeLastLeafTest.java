package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;
import static org.meshjava.journal.SnapshotTest.body;
import static org.meshjava.journal.SnapshotTest.get;
import static org.meshjava.journal.SnapshotTest.richState;
import static org.meshjava.journal.SnapshotTest.signed;
import static org.meshjava.journal.SnapshotTest.with;

import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborMap;

/**
 * A snapshot opens only with a tree {@link Snapshot#sign} would have written: levels of the right
 * size whose last leaf is the last receipt's. Before, open checked the size alone, so a signed
 * snapshot whose tree ended in another leaf opened, and a restart from it restored a transparency
 * tree that was not its receipts' (found by mesh-fuzz's {@code SnapshotFuzzTest}).
 */
class SnapshotTreeLastLeafTest {
  @Test
  void aTreeWhoseLastLeafIsNotTheLastReceipts_isMalformed() throws Exception {
    CborMap good = body(Snapshot.sign(STEWARD, richState()).encoded());
    byte[] tree = ((CborBytes) get(good, "tree")).bytes();
    int receipts = (int) richState().receipts().size();
    // The leaves are the first level: leaf i at 32 * i.
    tree[32 * (receipts - 1)] ^= 1;

    assertThatThrownBy(
            () -> Snapshot.open(signed(with(good, "tree", CborBytes.of(tree))), STEWARD_ID))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED))
        .hasMessageContaining("not the tree of the state's receipts");
  }
}
