package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.ReceiptException;

/**
 * A steward's replay (§6.4) met with what an attacker or an unlucky operator hands it: a receipt
 * whose chain link was altered, a steward restarted from its journal alone, replays beside granted
 * serves on one grant, and the witness shown a tampered receipt.
 */
class ReplayAttackTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /**
   * A replay holds the output to its commitment and does not read the chain (§6.3 is the chain's,
   * checked by opening the envelopes): a receipt whose {@code prev} was altered replays as the
   * serve it records, while the witness refuses it as no receipt the envelope seals, and suspends
   * nothing.
   */
  @Test
  void aReceiptWithABrokenChainLink_replaysOnItsCommitment_andTheWitnessRefusesIt()
      throws Exception {
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest first = GrantFixture.request("first", 3, CEILING);
      s.serve(first, GrantFixture.payload(first));
      ServeRequest req = GrantFixture.request("linked", 3, CEILING);
      ServeResult served = s.serve(req, GrantFixture.payload(req));
      MeshReceipt broken =
          served.receipt().toBuilder()
              .chain(served.receipt().sequence(), Optional.of(ContentId.ofBytes(new byte[] {9})))
              .build();

      assertThat(s.replay(inputs(s, broken, req), s.backends().getFirst()))
          .isInstanceOf(ReplayVerdict.Verified.class);
      assertThatThrownBy(() -> s.witness(broken, served.envelope()))
          .isInstanceOfSatisfying(
              ReceiptException.class,
              e -> assertThat(e.reason()).isEqualTo(ReceiptException.Reason.INCONSISTENT_RECEIPT));
      assertThat(s.grantsSuspended()).isEmpty();
    }
  }

  /**
   * A steward restarted on the same journal replays a receipt its first run sealed: the opening is
   * derived from the key, and the backend is the one registered under the receipt's name. Slow (a
   * file journal opened twice, synced per record: about a second on a loaded machine); the other
   * cases here are the default suite's sample.
   */
  @Test
  @Tag("slow")
  void aReplayAfterARestart_fromTheJournalAlone_verifies(@TempDir Path dir) throws Exception {
    Path journal = dir.resolve("steward.journal");
    ServeRequest req = GrantFixture.request("before the restart", 3, CEILING);
    GrantChain chain = f.chain(BUDGET);
    MeshReceipt sealed;
    try (Steward s = f.steward(FileJournal.open(journal)).build()) {
      sealed = s.serve(req, GrantFixture.payload(req), f.present(chain, req)).receipt();
    }
    try (Steward restarted = f.steward(FileJournal.open(journal)).build()) {
      long remaining = restarted.spend().remainingUj(chain);

      assertThat(restarted.replay(inputs(restarted, sealed, req), restarted.backends().getFirst()))
          .isInstanceOf(ReplayVerdict.Verified.class);
      assertThat(restarted.head().nextSequence()).isEqualTo(sealed.sequence() + 1);
      assertThat(restarted.spend().remainingUj(chain)).isEqualTo(remaining);
    }
  }

  /**
   * A replay is no serve on a grant: it decides, debits and seals nothing (§6.4 asks nothing of a
   * grant, and the re-serve is the replayer's own work), so replays beside granted serves leave the
   * grant's budget where the serves left it, and the serves after them are decided as before.
   */
  @Test
  void replaysBesideGrantedServes_spendNothingOfTheGrant() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest req = GrantFixture.request("granted", 3, CEILING);
      MeshReceipt sealed = s.serve(req, GrantFixture.payload(req), f.present(chain, req)).receipt();
      long afterServe = s.spend().remainingUj(chain);
      assertThat(afterServe).isLessThan(BUDGET);

      for (int i = 0; i < 3; i++) {
        assertThat(s.replay(inputs(s, sealed, req), s.backends().getFirst()))
            .isInstanceOf(ReplayVerdict.Verified.class);
      }

      assertThat(s.spend().remainingUj(chain)).isEqualTo(afterServe);
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isEqualTo(1);
      ServeRequest next = GrantFixture.request("granted again", 3, CEILING);
      s.serve(next, GrantFixture.payload(next), f.present(chain, next));
      assertThat(s.spend().remainingUj(chain)).isLessThan(afterServe);
    }
  }

  /**
   * The witness shown an envelope with a flipped byte refuses it as no evidence (its signature
   * fails) and suspends nothing; the genuine envelope is still held.
   */
  @Test
  void theWitness_refusesATamperedEnvelope_andSuspendsNothing() throws Exception {
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest req = GrantFixture.request("witnessed", 3, CEILING);
      ServeResult served = s.serve(req, GrantFixture.payload(req));
      byte[] bytes = served.envelope().bytes();
      bytes[bytes.length - 1] ^= 0x01;
      Envelope tampered = Envelope.of(bytes);

      assertThatThrownBy(() -> s.witness(served.receipt(), tampered))
          .isInstanceOf(ReceiptException.class);
      assertThat(s.grantsSuspended()).isEmpty();
      assertThat(s.witness(served.receipt(), served.envelope())).isEqualTo(WitnessVerdict.HELD);
    }
  }

  /** What a replay of {@code receipt}, sealed for {@code req} on {@code s}, needs. */
  private static ReplayInputs inputs(Steward s, MeshReceipt receipt, ServeRequest req) {
    TokenSequence payload = GrantFixture.payload(req);
    return new ReplayInputs(receipt, req, payload, s.opening(req.id()), Optional.empty());
  }
}
