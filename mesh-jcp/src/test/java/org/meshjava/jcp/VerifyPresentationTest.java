package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.jcp.Fixture.*;
import static org.meshjava.jcp.GateDecideTest.refused;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;

/**
 * {@link Gate#verifyPresentation} makes the checks of a decision that read no state, which a
 * steward makes before a serve takes a backend's slot: it refuses what {@link Gate#decide} refuses
 * among them with the same label and link, and passing it admits nothing, since the checks that
 * depend on the decision's time or on state (window, revocation, spend) are the decision's alone.
 */
class VerifyPresentationTest {

  /** A presentation refused by a check that reads no state, and the label it must get. */
  private record Scenario(String name, DenialLabel label, Presentation presentation) {}

  /**
   * {@code chain} extended by the caller with a child of {@code parent} (a link of some chain) held
   * by the steward, of {@code budgetUj}: no checks, so it may name another chain's link as parent.
   */
  private static GrantChain withChild(GrantChain chain, SignedGrant parent, long budgetUj)
      throws IssuanceException {
    Grant child = Grant.delegatedFrom(parent).subject(STEWARD_DID).budgetUj(budgetUj).build();
    return chain.extend(SignedGrant.sign(CALLER, child));
  }

  private static List<Scenario> statelessRefusals() throws Exception {
    GrantChain good = twoLinkChain(5_000);
    byte[] rootSignature = good.root().signature();
    rootSignature[3] ^= 1;
    GrantChain forgedRoot = GrantChain.of(SignedGrant.of(good.root().grant(), rootSignature));
    GrantChain forged = withChild(forgedRoot, forgedRoot.root(), 5_000);
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
    GrantChain widened = withChild(root, root.root(), 5_001);
    GrantChain otherRoot = Jcp.issueRoot(ORG, CALLER_DID, 4_000, T0, T_END);
    GrantChain broken = withChild(root, otherRoot.root(), 10);
    return List.of(
        new Scenario(
            "an outsider presents",
            DenialLabel.NOT_ISSUER,
            GateDecideTest.outsiderPresentation(directChain(5_000))),
        new Scenario(
            "signed for another request",
            DenialLabel.BAD_SIGNATURE,
            present(directChain(5_000), OTHER_REQUEST, 1)),
        new Scenario("a forged root", DenialLabel.BAD_SIGNATURE, present(forged, REQUEST, 1)),
        new Scenario(
            "a leaf of another parent", DenialLabel.BROKEN_CHAIN, present(broken, REQUEST, 1)),
        new Scenario(
            "a leaf above its parent's budget",
            DenialLabel.NOT_ATTENUATED,
            present(widened, REQUEST, 1)),
        new Scenario(
            "an unknown caveat",
            DenialLabel.UNKNOWN_CAVEAT,
            present(directChain(5_000, GateDecideTest.geoCaveat()), REQUEST, 1)),
        new Scenario(
            "held by another steward",
            DenialLabel.WRONG_HOLDER,
            present(Jcp.issueRoot(CALLER, OTHER_STEWARD_DID, 5_000, T0, T_END), REQUEST, 1)));
  }

  @Test
  void verifyPresentation_refusesEveryStatelessFailure_withTheLabelAndLinkOfTheDecision()
      throws Exception {
    for (Scenario s : statelessRefusals()) {
      Presentation p = s.presentation();
      GrantRefusedException early = refused(() -> gate().verifyPresentation(p, REQUEST.id()));
      GrantRefusedException decided = refused(() -> decide(gate(), p));
      assertThat(early.label()).as(s.name()).isEqualTo(s.label()).isEqualTo(decided.label());
      assertThat(early.link()).as(s.name()).isEqualTo(decided.link());
      assertThat(early.callerNotAuthenticated())
          .as(s.name())
          .isEqualTo(decided.callerNotAuthenticated());
    }
  }

  /**
   * A caller's signature over another request is refused with words naming the request it was
   * checked for; the words are made only on refusal, and the same presentation still passes for the
   * request it was signed for.
   */
  @Test
  void aSignatureForAnotherRequest_isRefusedNamingTheRequestCheckedFor() throws Exception {
    Presentation p = present(directChain(5_000), OTHER_REQUEST, 1);
    GrantRefusedException e = refused(() -> p.verifyFor(REQUEST.id()));
    assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
    assertThat(e.reason())
        .isEqualTo("the presentation is not signed by its caller for request " + REQUEST.id());
    p.verifyFor(OTHER_REQUEST.id());
  }

  /**
   * A grant revoked after its presentation passed, in the same gate (so its chain is remembered),
   * is refused by the decision: nothing stateful is skipped for a chain verified earlier.
   */
  @Test
  void aPresentationThatPassed_isStillRefused_whenItsGrantIsRevokedBeforeTheDecision()
      throws Exception {
    Revocations revocations = Revocations.none();
    Gate gate = Gate.create(STEWARD_DID, SpendLedger.inMemory(), revocations);
    GrantChain chain = twoLinkChain(5_000);
    Presentation p = present(chain, REQUEST, 1);
    gate.verifyPresentation(p, REQUEST.id());
    revocations.revoke(chain.root().id(), NOW);

    GrantRefusedException e = refused(() -> decide(gate, p));
    assertThat(e.label()).isEqualTo(DenialLabel.REVOKED);
    assertThat(e.link()).hasValue(0);
    assertThat(gate.remainingUj(chain)).isEqualTo(5_000);
  }

  /** Expiry is judged at the decision's time, whatever passed before it. */
  @Test
  void aPresentationThatPassed_isStillRefused_whenTheDecisionFallsAtItsExpiry() throws Exception {
    Gate gate = gate();
    Presentation p = present(twoLinkChain(5_000), REQUEST, 1);
    gate.verifyPresentation(p, REQUEST.id());

    GrantRefusedException e = refused(() -> gate.decide(p, REQUEST, Optional.empty(), T_END));
    assertThat(e.label()).isEqualTo(DenialLabel.EXPIRED);
  }
}
