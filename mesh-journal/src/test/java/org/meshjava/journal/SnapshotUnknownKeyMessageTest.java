package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;

import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;

/**
 * Regression: a snapshot body with a key no format has was refused as "unknown key
 * CborText[value=zzz]", Java's rendering of the decoded key, which {@code mesh journal verify} and
 * a refused start showed as it was. The key is now written as it reads in the file.
 */
class SnapshotUnknownKeyMessageTest {
  @Test
  void anUnknownKey_isNamedAsWritten() throws Exception {
    CborMap good = SnapshotTest.body(Snapshot.sign(STEWARD, SnapshotTest.richState()).encoded());
    byte[] extra = SnapshotTest.signed(SnapshotTest.with(good, "zzz", CborInt.of(1)));
    assertThatThrownBy(() -> Snapshot.open(extra, STEWARD_ID))
        .isInstanceOf(SnapshotException.class)
        .hasMessageContaining("unknown key \"zzz\"")
        .hasMessageNotContaining("CborText");
  }
}
