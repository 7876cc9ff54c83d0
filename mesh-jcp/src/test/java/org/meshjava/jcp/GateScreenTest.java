package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.jcp.Fixture.*;
import static org.meshjava.jcp.GateDecideTest.refused;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.IdentifiedRequest;

/**
 * {@link Gate#screen} makes, at a time read before the decision, the checks of {@link Gate#decide}
 * that need no backend and no spend: a steward makes them before a serve takes a backend's slot, so
 * a chain valid in itself but refused for its window, its revocation, its action, its resource or a
 * budget below the ceiling holds none. It refuses each with the label and link the decision gives
 * at the same time (SPEC.md 30, steps 7 and 8 in their order), but for a budget after spend, where
 * the two name different links; passing it reserves nothing.
 */
class GateScreenTest {

  /** A presentation the decision refuses at {@code at} for its time, action, request or size. */
  private record Scenario(
      String name, DenialLabel label, Presentation presentation, Revocations revoked, Instant at) {}

  /**
   * A delegation by CALLER to STEWARD of {@code chain}'s leaf, narrowed by {@code child}: what a
   * client holding one real grant can mint for itself.
   */
  private static GrantChain selfDelegation(GrantChain chain, Grant.Builder child)
      throws IssuanceException {
    return chain.extend(SignedGrant.sign(CALLER, child.subject(STEWARD_DID).build()));
  }

  private static List<Scenario> refusals() throws Exception {
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
    GrantChain expiredLeaf = selfDelegation(root, Grant.delegatedFrom(root.root()).window(T0, NOW));
    Revocations rootRevoked = Revocations.none();
    rootRevoked.revoke(root.root().id(), NOW);
    GrantChain direct = directChain(5_000);
    Revocations directRevoked = Revocations.none();
    directRevoked.revoke(direct.root().id(), T0);
    GrantChain embedOnly = directChainWith(g -> g.actions(Set.of("embed")));
    Revocations none = Revocations.none();
    return List.of(
        new Scenario(
            "a leaf with a budget of 0",
            DenialLabel.BUDGET_EXHAUSTED,
            present(selfDelegation(root, Grant.delegatedFrom(root.root()).budgetUj(0)), REQUEST, 1),
            none,
            NOW),
        new Scenario(
            "a leaf expired", DenialLabel.EXPIRED, present(expiredLeaf, REQUEST, 1), none, NOW),
        new Scenario(
            "a leaf not yet valid",
            DenialLabel.NOT_YET_VALID,
            present(
                selfDelegation(
                    root, Grant.delegatedFrom(root.root()).window(NOW.plusSeconds(1), T_END)),
                REQUEST,
                1),
            none,
            NOW),
        new Scenario(
            "a grant of another action",
            DenialLabel.ACTION_NOT_PERMITTED,
            present(embedOnly, REQUEST, 1),
            none,
            NOW),
        new Scenario(
            "a leaf granting another request",
            DenialLabel.RESOURCE_NOT_PERMITTED,
            present(
                selfDelegation(
                    root,
                    Grant.delegatedFrom(root.root())
                        .resources(Resources.only(Set.of(OTHER_REQUEST.id())))),
                REQUEST,
                1),
            none,
            NOW),
        new Scenario(
            "a revoked root",
            DenialLabel.REVOKED,
            present(selfDelegation(root, Grant.delegatedFrom(root.root())), REQUEST, 1),
            rootRevoked,
            NOW),
        // Two faults: the root's revocation is met before the leaf's expiry, root first, as the
        // decision meets them.
        new Scenario(
            "a revoked root over an expired leaf",
            DenialLabel.REVOKED,
            present(expiredLeaf, REQUEST, 1),
            rootRevoked,
            NOW),
        // Two faults on one link: expired before revoked, in step 7's order.
        new Scenario(
            "a direct grant revoked and expired",
            DenialLabel.EXPIRED,
            present(direct, REQUEST, 1),
            directRevoked,
            T_END));
  }

  @Test
  void screen_refusesEachTimeActionResourceAndBudgetFailure_withTheLabelAndLinkOfTheDecision()
      throws Exception {
    for (Scenario s : refusals()) {
      Gate gate = Gate.create(STEWARD_DID, SpendLedger.inMemory(), s.revoked());
      Presentation p = s.presentation();
      GrantRefusedException early =
          refused(() -> gate.screen(p, IdentifiedRequest.of(REQUEST), s.at()));
      GrantRefusedException decided =
          refused(() -> gate.decide(p, REQUEST, Optional.of(WEIGHTS_A), s.at()));
      assertThat(early.label())
          .as(s.name() + ": " + early.getMessage())
          .isEqualTo(s.label())
          .isEqualTo(decided.label());
      assertThat(early.link()).as(s.name()).isEqualTo(decided.link());
      assertThat(early.callerNotAuthenticated()).as(s.name()).isFalse();
      assertThat(gate.ledger().liveEntries()).as(s.name()).isZero();
    }
  }

  /**
   * What the decision admits passes, and passing reserves and spends nothing; a {@code ModelIn} is
   * left to the decision, which knows the backend (the steward routes only to a backend it admits).
   */
  @Test
  void screen_passesWhatTheDecisionAdmits_reservingNothing() throws Exception {
    Gate gate = gate();
    GrantChain chain = twoLinkChain(5_000, ModelIn.of(WEIGHTS_A));
    Presentation p = present(chain, REQUEST, 1);

    gate.screen(p, IdentifiedRequest.of(REQUEST), NOW);

    assertThat(gate.ledger().liveEntries()).isZero();
    assertThat(gate.ledger().isSpent(p.grantId(), p.nonce())).isFalse();
    decide(gate, p);
    assertThat(gate.remainingUj(chain)).isEqualTo(5_000 - CEILING);
  }

  /**
   * After spend, the screen and the decision judge the budget by different figures (a link's whole
   * budget, what it has left), so the label is the decision's but the link named may not be: here
   * the root has less left than the leaf's whole budget, and the decision names the root.
   */
  @Test
  void screen_afterSpendOnAnotherChain_refusesBudgetExhausted_namingTheLinkWithTheLeastBudget()
      throws Exception {
    Gate gate = gate();
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
    GrantChain wide = Jcp.delegate(CALLER, root, STEWARD_DID, 5_000);
    gate.debit(decide(gate, present(wide, REQUEST, 1)), 4_500);
    GrantChain narrow = Jcp.delegate(CALLER, root, STEWARD_DID, CEILING - 200);
    Presentation p = present(narrow, REQUEST, 2);

    GrantRefusedException early = refused(() -> gate.screen(p, IdentifiedRequest.of(REQUEST), NOW));
    GrantRefusedException decided = refused(() -> decide(gate, p));

    assertThat(early.label()).isEqualTo(decided.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(early.link()).hasValue(1);
    assertThat(decided.link()).hasValue(0);
  }

  /**
   * What a link has left is the decision's alone (a concurrent serve's release may raise it before
   * then): a chain whose every budget covers the ceiling passes the screen though its root has less
   * left, and the decision refuses it.
   */
  @Test
  void screen_passesAChainWhoseBudgetsCoverTheCeiling_whateverIsLeft() throws Exception {
    Gate gate = gate();
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
    gate.debit(
        decide(gate, present(Jcp.delegate(CALLER, root, STEWARD_DID, 5_000), REQUEST, 1)), 4_500);
    Presentation p = present(Jcp.delegate(CALLER, root, STEWARD_DID, 4_000), REQUEST, 2);

    gate.screen(p, IdentifiedRequest.of(REQUEST), NOW);

    assertThat(refused(() -> decide(gate, p)).label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
  }

  /** A budget that just covers the ceiling passes; one µJ less is refused, as the decision does. */
  @Test
  void screen_admitsABudgetOfExactlyTheCeiling() throws Exception {
    Gate gate = gate();
    gate.screen(present(twoLinkChain(CEILING), REQUEST, 1), IdentifiedRequest.of(REQUEST), NOW);
    GrantRefusedException e =
        refused(
            () ->
                gate.screen(
                    present(twoLinkChain(CEILING - 1), REQUEST, 1),
                    IdentifiedRequest.of(REQUEST),
                    NOW));
    assertThat(e.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(e.link()).hasValue(0);
  }
}
