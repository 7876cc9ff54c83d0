package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;

/**
 * Spent pairs restored packed (as a snapshot holds them) decide exactly as the ledger they were
 * taken from: the same refusals, the same forgetting at each pair's expiry, the same state.
 */
class PackedSpentTest {
  private static final Instant T0 = Instant.parse("2026-06-01T00:00:00Z");

  private static GrantId id(Random rnd) {
    byte[] b = new byte[32];
    rnd.nextBytes(b);
    return new GrantId(ContentId.fromDigest(b));
  }

  private static PresentationNonce nonce(Random rnd) {
    byte[] b = new byte[PresentationNonce.LENGTH];
    rnd.nextBytes(b);
    return PresentationNonce.of(b);
  }

  /** One decision a ledger is shown. */
  private record Spend(GrantId leaf, PresentationNonce nonce, List<LinkBudget> links, Instant at) {}

  @Test
  void aLedgerRestoredPacked_decidesAsTheOriginal_throughExpiries() throws Exception {
    Random rnd = new Random(7);
    GrantId root = id(rnd);
    // Three leaves whose chains end at different times, so pairs are forgotten in three steps.
    List<List<LinkBudget>> chains = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Instant end = T0.plusSeconds(100L * (c + 1));
      chains.add(
          List.of(
              new LinkBudget(root, Long.MAX_VALUE / 4, T0.plusSeconds(10_000)),
              new LinkBudget(id(rnd), Long.MAX_VALUE / 4, end)));
    }
    List<Spend> history = new ArrayList<>();
    SpendLedger original = SpendLedger.inMemory();
    for (int i = 0; i < 300; i++) {
      List<LinkBudget> links = chains.get(i % 3);
      Spend s = new Spend(links.get(1).link(), nonce(rnd), links, T0.plusMillis(i));
      history.add(s);
      original.settle(original.reserve(s.leaf(), s.nonce(), s.links(), 10, s.at()), 7);
    }
    LedgerState state = original.state();
    assertThat(state.spent()).isInstanceOf(PackedSpent.class).hasSize(300);
    // Restored from the bytes, as a snapshot is read.
    SpendLedger restored =
        SpendLedger.restore(
            new LedgerState(
                state.horizon(),
                state.nextSerial(),
                state.accounts(),
                PackedSpent.of(((PackedSpent) state.spent()).packed()),
                state.open()));
    assertThat(restored.state()).isEqualTo(state);
    assertThat(restored.liveEntries()).isEqualTo(original.liveEntries());

    // Every spent pair is refused by both, and stays spent.
    for (Spend s : history) {
      assertThat(restored.isSpent(s.leaf(), s.nonce())).isTrue();
      for (SpendLedger l : List.of(original, restored)) {
        assertThatThrownBy(() -> l.reserve(s.leaf(), s.nonce(), s.links(), 10, T0.plusSeconds(1)))
            .isInstanceOf(GrantRefusedException.class)
            .extracting(e -> ((GrantRefusedException) e).label())
            .isEqualTo(DenialLabel.PRESENTATION_SPENT);
      }
    }
    // A fresh pair spends on both alike; then time passes each chain's end in turn.
    for (int step = 0; step <= 3; step++) {
      Instant at = T0.plusSeconds(100L * step + 50);
      List<LinkBudget> links =
          List.of(new LinkBudget(root, Long.MAX_VALUE / 4, T0.plusSeconds(10_000)));
      GrantId leaf = id(rnd);
      PresentationNonce n = nonce(rnd);
      for (SpendLedger l : List.of(original, restored)) {
        l.settle(l.reserve(leaf, n, links, 10, at), 3);
      }
      assertThat(restored.state()).as("after step %d", step).isEqualTo(original.state());
      assertThat(restored.liveEntries()).isEqualTo(original.liveEntries());
      for (Spend s : history) {
        assertThat(restored.isSpent(s.leaf(), s.nonce()))
            .as("pair of chain ending %s at %s", s.links().get(1).expiry(), at)
            .isEqualTo(original.isSpent(s.leaf(), s.nonce()));
      }
    }
    // By the last step every chain of the history has ended: only the four fresh pairs are left.
    assertThat(restored.state().spent()).hasSize(4);
  }

  @Test
  void packed_roundTripsRecords_inTheSnapshotOrder() {
    Random rnd = new Random(3);
    List<LedgerState.Spent> pairs = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      pairs.add(new LedgerState.Spent(id(rnd), nonce(rnd), T0.plusNanos(rnd.nextInt(1_000_000))));
    }
    pairs.add(new LedgerState.Spent(pairs.get(0).leaf(), nonce(rnd), Instant.MAX));
    PackedSpent p = PackedSpent.of(pairs);
    assertThat(p).containsExactlyInAnyOrderElementsOf(pairs);
    assertThat(PackedSpent.of(p.packed())).isEqualTo(p).containsExactlyElementsOf(p);
    for (LedgerState.Spent s : pairs) {
      assertThat(p.indexOf(s.leaf(), s.nonce())).isGreaterThanOrEqualTo(0);
      assertThat(p.get(p.indexOf(s.leaf(), s.nonce()))).isEqualTo(s);
    }
    assertThat(p.indexOf(id(rnd), nonce(rnd))).isEqualTo(-1);
  }

  @Test
  void packedBytes_outOfOrder_repeated_orOutOfRange_areRefused() {
    Random rnd = new Random(5);
    List<LedgerState.Spent> pairs =
        List.of(
            new LedgerState.Spent(id(rnd), nonce(rnd), T0),
            new LedgerState.Spent(id(rnd), nonce(rnd), T0));
    byte[] good = PackedSpent.of(pairs).packed();
    byte[] swapped = new byte[good.length];
    System.arraycopy(good, PackedSpent.BYTES, swapped, 0, PackedSpent.BYTES);
    System.arraycopy(good, 0, swapped, PackedSpent.BYTES, PackedSpent.BYTES);
    assertThatThrownBy(() -> PackedSpent.of(swapped))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not after");
    byte[] twice = new byte[good.length];
    System.arraycopy(good, 0, twice, 0, PackedSpent.BYTES);
    System.arraycopy(good, 0, twice, PackedSpent.BYTES, PackedSpent.BYTES);
    assertThatThrownBy(() -> PackedSpent.of(twice)).isInstanceOf(IllegalArgumentException.class);
    byte[] badNanos = good.clone();
    ByteBuffer.wrap(badNanos).putInt(PackedSpent.BYTES - 4, 1_000_000_000);
    assertThatThrownBy(() -> PackedSpent.of(badNanos))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> PackedSpent.of(new byte[PackedSpent.BYTES + 1]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PackedSpent.of(List.of(pairs.get(0), pairs.get(0))))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
