package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.core.DenialLabel;

/**
 * A spent nonce is kept exactly as long as a presentation carrying it could be accepted: until
 * decisions reach the earliest expiry in its chain. After that the ledger forgets it, and the
 * link's spend with it, so a steward's live state does not grow with the serves it has done (issue
 * 21 item 1). Decision times stand in for the steward's clock.
 */
class NonceLifetimeTest {
  private static final Instant SHORT_END = T0.plusSeconds(600);

  /** ORG grants CALLER for ten minutes; CALLER delegates it to STEWARD. */
  private static GrantChain shortChain() throws IssuanceException {
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, Long.MAX_VALUE / 2, T0, SHORT_END);
    return Jcp.delegate(CALLER, root, STEWARD_DID, Long.MAX_VALUE / 4);
  }

  /** Live entries after {@code n} granted serves on a short grant, then one decision past it. */
  private static long[] liveBeforeAndAfterExpiry(int n) throws Exception {
    Gate gate = gate();
    GrantChain chain = shortChain();
    for (int i = 0; i < n; i++) {
      Presentation p = Presentation.sign(CALLER, chain, REQUEST.id());
      Authorisation a = gate.decide(p, REQUEST, Optional.empty(), T0.plusMillis(i));
      gate.debit(a, 10);
    }
    long before = gate.ledger().liveEntries();
    // A later serve on a grant that outlives the first moves the ledger past the first's expiry.
    Presentation later = Presentation.sign(CALLER, directChain(5_000), REQUEST.id());
    gate.debit(gate.decide(later, REQUEST, Optional.empty(), SHORT_END), 10);
    return new long[] {before, gate.ledger().liveEntries()};
  }

  @Test
  void liveState_afterExpiry_doesNotGrowWithTheNumberOfServes() throws Exception {
    long[] small = liveBeforeAndAfterExpiry(50);
    long[] large = liveBeforeAndAfterExpiry(1_000);
    // Before expiry every nonce is held (it could still be replayed): one pair per serve, 2 links.
    assertThat(small[0]).isEqualTo(50 + 2);
    assertThat(large[0]).isEqualTo(1_000 + 2);
    // After: only the later serve's pair and its link remain, whatever came before.
    assertThat(small[1]).isEqualTo(2);
    assertThat(large[1]).isEqualTo(small[1]);
  }

  /**
   * At {@code 0} the later decision is at exactly the expiry, which already forgets the nonce (the
   * window is half open): the ledger must refuse a chain whose expiry its horizon has reached, not
   * only one it has passed. Refusing only past it let the old presentation be spent again.
   */
  @ParameterizedTest(name = "later decision {0} s after the expiry")
  @ValueSource(longs = {0, 1})
  void aForgottenNonce_cannotBeReplayed_evenWhenTheClockStepsBack(long afterExpirySeconds)
      throws Exception {
    Gate gate = gate();
    Presentation p = spendAt(gate, shortChain(), NOW);
    spendAt(gate, directChain(5_000), SHORT_END.plusSeconds(afterExpirySeconds));
    assertThat(gate.ledger().isSpent(p.grantId(), p.nonce())).as("forgotten").isFalse();
    // A clock that stepped back to before the expiry must not make the old presentation new.
    GrantRefusedException e =
        assertThrows(
            GrantRefusedException.class,
            () -> gate.decide(p, REQUEST, Optional.empty(), NOW.plusSeconds(1)));
    assertThat(e.label()).isEqualTo(DenialLabel.EXPIRED);
  }

  @Test
  void aRefusalAfterExpiry_movesNoHorizon_soTheSpendItWouldForgetIsKept() throws Exception {
    Gate gate = gate();
    GrantChain chain = shortChain();
    Presentation p = spendAt(gate, chain, NOW);
    Presentation later = spendAt(gate, directChain(5_000), NOW);
    // The clock is ahead, past the short grant's expiry, for one refused decision. A refusal is
    // journalled nowhere, so a replay never sees that time; the ledger must not have seen it.
    GrantRefusedException spent =
        assertThrows(
            GrantRefusedException.class,
            () -> gate.decide(later, REQUEST, Optional.empty(), SHORT_END.plusSeconds(1)));
    assertThat(spent.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT);
    assertThat(gate.ledger().state().horizon()).isEqualTo(NOW);
    assertThat(gate.ledger().isSpent(p.grantId(), p.nonce())).as("still held").isTrue();
    // Back on time, the short grant serves as it would after a restart.
    spendAt(gate, chain, NOW.plusSeconds(1));
  }

  /** Presents {@code chain} with a fresh nonce, decided at {@code t} and debited 10 µJ. */
  private static Presentation spendAt(Gate gate, GrantChain chain, Instant t) throws Exception {
    Presentation p = Presentation.sign(CALLER, chain, REQUEST.id());
    gate.debit(gate.decide(p, REQUEST, Optional.empty(), t), 10);
    return p;
  }

  @Test
  void beforeExpiry_aSpentNonceIsKept_andRefused() throws Exception {
    Gate gate = gate();
    GrantChain chain = shortChain();
    Presentation p = Presentation.sign(CALLER, chain, REQUEST.id());
    gate.debit(gate.decide(p, REQUEST, Optional.empty(), NOW), 10);
    Presentation other = Presentation.sign(CALLER, directChain(5_000), REQUEST.id());
    gate.debit(gate.decide(other, REQUEST, Optional.empty(), SHORT_END.minusMillis(1)), 10);
    assertThat(gate.ledger().isSpent(p.grantId(), p.nonce())).isTrue();
    assertThat(
            assertThrows(
                    GrantRefusedException.class,
                    () -> gate.decide(p, REQUEST, Optional.empty(), SHORT_END.minusMillis(1)))
                .label())
        .isEqualTo(DenialLabel.PRESENTATION_SPENT);
  }

  @Test
  void aReservationOpenAcrossExpiry_keepsItsSpendUntilSettled() throws Exception {
    Gate gate = gate();
    GrantChain chain = shortChain();
    Authorisation open =
        gate.decide(Presentation.sign(CALLER, chain, REQUEST.id()), REQUEST, Optional.empty(), NOW);
    Presentation later = Presentation.sign(CALLER, directChain(5_000), REQUEST.id());
    gate.debit(gate.decide(later, REQUEST, Optional.empty(), SHORT_END), 10);
    GrantId leaf = chain.leaf().id();
    assertThat(gate.ledger().spend(leaf).reservedUj()).isEqualTo(CEILING);
    gate.debit(open, 10);
    // Settled after its grant expired: reported, then forgotten.
    assertThat(gate.ledger().spend(leaf).debitedUj()).isZero();
    assertThat(gate.ledger().liveEntries()).isEqualTo(2);
  }
}
