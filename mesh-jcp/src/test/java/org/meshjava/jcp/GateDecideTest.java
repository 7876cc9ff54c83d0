package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborMap;

class GateDecideTest {

  static GrantRefusedException refused(Executable e) {
    return assertThrows(GrantRefusedException.class, e);
  }

  /**
   * One scenario per label. The switch has no default, so adding a label without a scenario that
   * produces it does not compile.
   */
  static DenialLabel produce(DenialLabel label) throws Exception {
    Gate gate = gate();
    return switch (label) {
      case MALFORMED ->
          assertThrows(MalformedGrantException.class, () -> Presentation.fromHex("a0")).label();
      case BAD_SIGNATURE -> {
        GrantChain good = directChain(5_000);
        byte[] sig = good.root().signature();
        sig[0] ^= 1;
        GrantChain forged = GrantChain.of(SignedGrant.of(good.root().grant(), sig));
        yield refused(() -> decide(gate, present(forged, REQUEST, 1))).label();
      }
      case BROKEN_CHAIN -> {
        GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
        // The outsider signs a child of CALLER's grant: its issuer is not the root's subject.
        Grant child =
            Grant.delegatedFrom(root.root()).issuer(OUTSIDER_DID).subject(STEWARD_DID).build();
        GrantChain chain = root.extend(SignedGrant.sign(OUTSIDER, child));
        Presentation p = Presentation.sign(OUTSIDER, chain, REQUEST.id(), nonce(1));
        yield refused(() -> decide(gate, p)).label();
      }
      case NOT_ATTENUATED -> {
        GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
        Grant child = Grant.delegatedFrom(root.root()).subject(STEWARD_DID).budgetUj(5_001).build();
        GrantChain chain = root.extend(SignedGrant.sign(CALLER, child));
        yield refused(() -> decide(gate, present(chain, REQUEST, 1))).label();
      }
      case EXPIRED ->
          refused(
                  () ->
                      gate.decide(
                          present(directChain(5_000), REQUEST, 1),
                          REQUEST,
                          Optional.empty(),
                          T_END))
              .label();
      case NOT_YET_VALID ->
          refused(
                  () ->
                      gate.decide(
                          present(directChain(5_000), REQUEST, 1),
                          REQUEST,
                          Optional.empty(),
                          T0.minusSeconds(1)))
              .label();
      case REVOKED -> {
        Revocations revocations = Revocations.none();
        Gate g = Gate.create(STEWARD_DID, SpendLedger.inMemory(), revocations);
        GrantChain chain = directChain(5_000);
        revocations.revoke(chain.root().id(), NOW);
        yield refused(() -> decide(g, present(chain, REQUEST, 1))).label();
      }
      case ACTION_NOT_PERMITTED -> {
        GrantChain chain = directChainWith(b -> b.actions(Set.of("embed")));
        yield refused(() -> decide(gate, present(chain, REQUEST, 1))).label();
      }
      case RESOURCE_NOT_PERMITTED -> {
        GrantChain chain =
            directChainWith(b -> b.resources(Resources.only(Set.of(OTHER_REQUEST.id()))));
        yield refused(() -> decide(gate, present(chain, REQUEST, 1))).label();
      }
      case CAVEAT_UNSATISFIED -> {
        GrantChain chain = directChain(5_000, ModelIn.of(WEIGHTS_B));
        yield refused(() -> decide(gate, present(chain, REQUEST, 1))).label();
      }
      case UNKNOWN_CAVEAT -> {
        GrantChain chain = directChain(5_000, geoCaveat());
        yield refused(() -> decide(gate, present(chain, REQUEST, 1))).label();
      }
      case BUDGET_EXHAUSTED -> {
        GrantChain chain = directChain(CEILING - 1);
        yield refused(() -> decide(gate, present(chain, REQUEST, 1))).label();
      }
      case WRONG_HOLDER -> {
        GrantChain chain = Jcp.issueRoot(CALLER, OTHER_STEWARD_DID, 5_000, T0, T_END);
        yield refused(() -> decide(gate, present(chain, REQUEST, 1))).label();
      }
      case NOT_ISSUER -> {
        GrantChain chain = directChain(5_000);
        yield refused(() -> decide(gate, outsiderPresentation(chain))).label();
      }
      case PRESENTATION_SPENT -> {
        Presentation p = present(directChain(5_000), REQUEST, 1);
        decide(gate, p);
        yield refused(() -> decide(gate, p)).label();
      }
    };
  }

  static UnknownCaveat geoCaveat() {
    return new UnknownCaveat(
        "Geo", CborMap.builder().put("caveat", "Geo").put("region", "eu").build());
  }

  /** The outsider signs a presentation of a grant it did not issue. */
  static Presentation outsiderPresentation(GrantChain chain) {
    PresentationNonce n = nonce(9);
    byte[] sig =
        OUTSIDER.sign(Presentation.signedPayload(REQUEST.id(), chain.leaf().id(), OUTSIDER_DID, n));
    return Presentation.of(chain, OUTSIDER_DID, n, sig);
  }

  @ParameterizedTest
  @EnumSource(DenialLabel.class)
  void everyDenialLabel_isProducedByItsScenario(DenialLabel label) throws Exception {
    assertThat(produce(label)).isEqualTo(label);
  }

  @Test
  void decide_onAValidTwoLinkChain_admitsAndReservesTheCeilingOnEveryLink() throws Exception {
    Gate gate = gate();
    GrantChain chain = twoLinkChain(5_000, ModelIn.of(WEIGHTS_A, WEIGHTS_B));
    Authorisation a = decide(gate, present(chain, REQUEST, 1));
    assertThat(a.grantId()).isEqualTo(chain.leaf().id());
    assertThat(a.links()).containsExactlyElementsOf(chain.ids());
    for (GrantId id : chain.ids()) {
      assertThat(gate.ledger().spend(id)).isEqualTo(new LinkSpend(id, 0, CEILING));
    }
    assertThat(gate.remainingUj(chain)).isEqualTo(5_000 - CEILING);
  }

  @Test
  void decide_whenCallerIsNotTheLeafIssuer_isUnauthenticatedNotForbidden() throws Exception {
    GrantRefusedException e =
        refused(() -> decide(gate(), outsiderPresentation(directChain(5_000))));
    assertThat(e.label()).isEqualTo(DenialLabel.NOT_ISSUER);
    assertThat(e.callerNotAuthenticated()).isTrue();
  }

  @Test
  void decide_whenPresentationWasSignedForAnotherRequest_refusesAsBadSignatureOfTheCaller()
      throws Exception {
    Presentation p = present(directChain(5_000), OTHER_REQUEST, 1);
    GrantRefusedException e = refused(() -> decide(gate(), p));
    assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
    assertThat(e.link()).isEmpty();
    assertThat(e.callerNotAuthenticated()).isTrue();
  }

  @Test
  void decide_whenAGrantSignatureIsForged_namesTheLinkAndIsForbidden() throws Exception {
    GrantChain good = twoLinkChain(5_000);
    byte[] sig = good.root().signature();
    sig[10] ^= 0x40;
    // Re-linking the child to the forged root keeps the linkage intact so only the signature fails.
    GrantChain forged = GrantChain.of(SignedGrant.of(good.root().grant(), sig));
    Grant child = Grant.delegatedFrom(forged.root()).subject(STEWARD_DID).build();
    GrantChain chain = forged.extend(SignedGrant.sign(CALLER, child));
    GrantRefusedException e = refused(() -> decide(gate(), present(chain, REQUEST, 1)));
    assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
    assertThat(e.link()).hasValue(0);
    assertThat(e.callerNotAuthenticated()).isFalse();
  }

  @Test
  void decide_whenChildNamesAnotherParent_refusesAsBrokenChain() throws Exception {
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
    GrantChain otherRoot = Jcp.issueRoot(ORG, CALLER_DID, 4_000, T0, T_END);
    Grant child = Grant.delegatedFrom(otherRoot.root()).subject(STEWARD_DID).budgetUj(10).build();
    GrantChain chain = root.extend(SignedGrant.sign(CALLER, child));
    GrantRefusedException e = refused(() -> decide(gate(), present(chain, REQUEST, 1)));
    assertThat(e.label()).isEqualTo(DenialLabel.BROKEN_CHAIN);
    assertThat(e.link()).hasValue(1);
  }

  @Test
  void decide_whenRootNamesAParent_refusesAsBrokenChain() throws Exception {
    Grant g =
        Grant.builder()
            .issuer(CALLER_DID)
            .subject(STEWARD_DID)
            .budgetUj(5_000)
            .window(T0, T_END)
            .parent(new GrantId(ContentId.ofBytes(bytes("x"))))
            .build();
    GrantChain chain = GrantChain.of(SignedGrant.sign(CALLER, g));
    GrantRefusedException e = refused(() -> decide(gate(), present(chain, REQUEST, 1)));
    assertThat(e.label()).isEqualTo(DenialLabel.BROKEN_CHAIN);
    assertThat(e.link()).hasValue(0);
  }

  @Test
  void decide_windowIsHalfOpen_validFromNotBeforeUntilJustBeforeExpiry() throws Exception {
    GrantChain chain = directChain(50_000);
    Gate gate = gate();
    gate.decide(present(chain, REQUEST, 1), REQUEST, Optional.empty(), T0);
    gate.decide(present(chain, REQUEST, 2), REQUEST, Optional.empty(), T_END.minusNanos(1));
    assertThat(
            refused(
                    () ->
                        gate.decide(
                            present(chain, REQUEST, 3),
                            REQUEST,
                            Optional.empty(),
                            T0.minusNanos(1)))
                .label())
        .isEqualTo(DenialLabel.NOT_YET_VALID);
    assertThat(
            refused(() -> gate.decide(present(chain, REQUEST, 4), REQUEST, Optional.empty(), T_END))
                .label())
        .isEqualTo(DenialLabel.EXPIRED);
  }

  /**
   * The ledger also refuses a decision at or past a link's expiry (its horizon guard), so the test
   * above holds with the gate's own expiry check gone. This one tells them apart: at the expiry
   * instant the gate's step 7 answers {@code expired} before the link's later checks, where the
   * ledger, reached only after them, never would.
   */
  @Test
  void decide_atTheExpiryInstant_isExpired_beforeTheLinksLaterChecks() throws Exception {
    GrantChain chain = directChain(50_000, ModelIn.of(WEIGHTS_B));
    GrantRefusedException e =
        refused(() -> gate().decide(present(chain, REQUEST, 1), REQUEST, Optional.empty(), T_END));
    assertThat(e.label()).isEqualTo(DenialLabel.EXPIRED);
    assertThat(e.link()).hasValue(0);
  }

  @Test
  void decide_anExpiredRootExpiresTheWholeChain() throws Exception {
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
    Grant child = Grant.delegatedFrom(root.root()).subject(STEWARD_DID).build();
    GrantChain chain = root.extend(SignedGrant.sign(CALLER, child));
    GrantRefusedException e =
        refused(
            () ->
                gate()
                    .decide(
                        present(chain, REQUEST, 1),
                        REQUEST,
                        Optional.empty(),
                        T_END.plusSeconds(1)));
    assertThat(e.label()).isEqualTo(DenialLabel.EXPIRED);
    assertThat(e.link()).hasValue(0);
  }

  /**
   * Step 7 checks the expiry before revocation (SPEC.md, Presentation): a chain both expired and
   * revoked is refused {@code expired}. The ledger refuses an expired chain too, but only after the
   * gate's other checks, so without the gate's own expiry check this one was refused {@code
   * revoked}.
   */
  @Test
  void decide_anExpiredChainAlsoRevoked_isRefusedExpired_theFirstFailureOfStep7() throws Exception {
    Revocations revocations = Revocations.none();
    Gate gate = Gate.create(STEWARD_DID, SpendLedger.inMemory(), revocations);
    GrantChain chain = directChain(50_000);
    revocations.revoke(chain.root().id(), T0);
    GrantRefusedException e =
        refused(() -> gate.decide(present(chain, REQUEST, 1), REQUEST, Optional.empty(), T_END));
    assertThat(e.label()).as(e.getMessage()).isEqualTo(DenialLabel.EXPIRED);
    assertThat(e.link()).hasValue(0);
  }

  @Test
  void decide_revocationRefusesAtAndAfterItsTime_butADecisionBeforeItStands() throws Exception {
    Revocations revocations = Revocations.none();
    Gate gate = Gate.create(STEWARD_DID, SpendLedger.inMemory(), revocations);
    GrantChain chain = twoLinkChain(50_000);
    Instant from = NOW;
    revocations.revoke(chain.root().id(), from);
    gate.decide(present(chain, REQUEST, 1), REQUEST, Optional.empty(), from.minusNanos(1));
    for (Instant t : new Instant[] {from, from.plusSeconds(1)}) {
      GrantRefusedException e =
          refused(() -> gate.decide(present(chain, REQUEST, 2), REQUEST, Optional.empty(), t));
      assertThat(e.label()).isEqualTo(DenialLabel.REVOKED);
      assertThat(e.link()).hasValue(0);
    }
    assertThat(revocations.isRevokedAt(chain.root().id(), from)).isTrue();
  }

  @Test
  void revoke_twice_keepsTheEarlierTime() {
    Revocations r = Revocations.none();
    GrantId id = new GrantId(ContentId.ofBytes(bytes("g")));
    r.revoke(id, NOW);
    r.revoke(id, NOW.plusSeconds(10));
    assertThat(r.revokedFrom(id)).as("a later time does not narrow it").hasValue(NOW);
    r.revoke(id, NOW.minusSeconds(10));
    assertThat(r.revokedFrom(id)).hasValue(NOW.minusSeconds(10));
    assertThat(r.all()).isEqualTo(java.util.Map.of(id, NOW.minusSeconds(10)));
  }

  @Test
  void isRevokedAt_isFalseBeforeTheTimeAndForAnIdNeverRevoked() {
    Revocations r = Revocations.none();
    GrantId id = new GrantId(ContentId.ofBytes(bytes("g")));
    GrantId other = new GrantId(ContentId.ofBytes(bytes("h")));
    r.revoke(id, NOW);
    assertThat(r.isRevokedAt(id, NOW.minusSeconds(1))).isFalse();
    assertThat(r.isRevokedAt(id, NOW)).isTrue();
    assertThat(r.isRevokedAt(other, NOW)).isFalse();
    assertThat(r.revokedFrom(other)).isEmpty();
  }

  @Test
  void decide_whenTheLeafOfALongerChainIsHeldElsewhere_namesTheLeaf() throws Exception {
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
    GrantChain chain = Jcp.delegate(CALLER, root, OTHER_STEWARD_DID, 5_000);
    GrantRefusedException e = refused(() -> decide(gate(), present(chain, REQUEST, 1)));
    assertThat(e.label()).isEqualTo(DenialLabel.WRONG_HOLDER);
    assertThat(e.link()).hasValue(1);
    assertThat(e.callerNotAuthenticated()).isFalse();
  }

  @Test
  void gate_reportsItsHolderAndTheRevocationsItConsults() {
    Revocations revocations = Revocations.none();
    SpendLedger ledger = SpendLedger.inMemory();
    Gate gate = Gate.create(STEWARD_DID, ledger, revocations);
    assertThat(gate.holder()).isEqualTo(STEWARD_DID);
    assertThat(gate.revocations()).isSameAs(revocations);
    assertThat(gate.ledger()).isSameAs(ledger);
  }

  @Test
  void authorisation_carriesEveryFactOfTheDecision() throws Exception {
    Presentation p = present(directChain(5_000), REQUEST, 1);
    Authorisation a = decide(gate(), p);
    assertThat(a.presentation()).isSameAs(p);
    assertThat(a.requestId()).isEqualTo(REQUEST.id());
    assertThat(a.ceilingUj()).isEqualTo(CEILING);
    assertThat(a.model()).contains(WEIGHTS_A);
    assertThat(a.decisionTime()).isEqualTo(NOW);
    assertThat(a.maxCostUj()).isEmpty();
    assertThat(a.reservation().amountUj()).isEqualTo(CEILING);
  }

  @Test
  void refusalMadeByALedgerOutsideThePackage_namesNoLink() {
    GrantRefusedException e = GrantRefusedException.of(DenialLabel.PRESENTATION_SPENT, "spent");
    assertThat(e.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT);
    assertThat(e.reason()).isEqualTo("spent");
    assertThat(e.link()).isEmpty();
    assertThat(e.callerNotAuthenticated()).isFalse();
  }

  @Test
  void decide_underModelIn_admitsAListedModelAndRefusesAnotherOrNone() throws Exception {
    GrantChain chain = twoLinkChain(50_000, ModelIn.of(WEIGHTS_A, WEIGHTS_B));
    Gate gate = gate();
    gate.decide(present(chain, REQUEST, 1), REQUEST, Optional.of(WEIGHTS_B), NOW);
    assertThat(
            refused(
                    () ->
                        gate.decide(
                            present(chain, REQUEST, 2), REQUEST, Optional.of(WEIGHTS_C), NOW))
                .label())
        .isEqualTo(DenialLabel.CAVEAT_UNSATISFIED);
    assertThat(
            refused(() -> gate.decide(present(chain, REQUEST, 3), REQUEST, Optional.empty(), NOW))
                .label())
        .isEqualTo(DenialLabel.CAVEAT_UNSATISFIED);
  }

  @Test
  void decide_withoutModelIn_admitsABackendThatNamesNoWeights() throws Exception {
    gate().decide(present(directChain(5_000), REQUEST, 1), REQUEST, Optional.empty(), NOW);
  }

  @Test
  void permittedModels_intersectsEveryModelInOfTheChain() throws Exception {
    GrantChain root =
        Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END, ModelIn.of(WEIGHTS_A, WEIGHTS_B));
    GrantChain chain = Jcp.delegate(CALLER, root, STEWARD_DID, 5_000, ModelIn.of(WEIGHTS_B));
    assertThat(chain.permittedModels()).hasValue(Set.of(WEIGHTS_B));
    assertThat(chain.admitsModel(Optional.of(WEIGHTS_A))).isFalse();
    assertThat(chain.admitsModel(Optional.of(WEIGHTS_B))).isTrue();
    assertThat(chain.admitsModel(Optional.empty())).isFalse();
    assertThat(directChain(5).permittedModels()).isEmpty();
    assertThat(directChain(5).admitsModel(Optional.empty())).isTrue();
    // The gate agrees with the router's view.
    assertThat(
            refused(
                    () ->
                        gate()
                            .decide(
                                present(chain, REQUEST, 1), REQUEST, Optional.of(WEIGHTS_A), NOW))
                .label())
        .isEqualTo(DenialLabel.CAVEAT_UNSATISFIED);
  }

  @Test
  void decide_whenRemainingEqualsTheCeiling_admits() throws Exception {
    decide(gate(), present(directChain(CEILING), REQUEST, 1));
  }

  @Test
  void decide_budgetIsTheLeastOverLinks_soATightRootBindsAGenerousLeaf() throws Exception {
    Gate gate = gate();
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 1_500, T0, T_END);
    GrantChain chain = Jcp.delegate(CALLER, root, STEWARD_DID, 1_500);
    // Spend on the root through a sibling chain, then the original leaf has only 500 left.
    GrantChain sibling = Jcp.delegate(CALLER, root, STEWARD_DID, 1_200, new MaxCostUj(5_000));
    Authorisation a = decide(gate, present(sibling, REQUEST, 1));
    gate.debit(a, 1_000);
    GrantRefusedException e = refused(() -> decide(gate, present(chain, REQUEST, 2)));
    assertThat(e.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(e.link()).hasValue(0);
  }

  @Test
  void decide_refusalOfBudget_doesNotSpendThePresentation() throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(CEILING);
    Authorisation first = decide(gate, present(chain, REQUEST, 1));
    Presentation second = present(chain, REQUEST, 2);
    assertThat(refused(() -> decide(gate, second)).label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(gate.ledger().isSpent(chain.leaf().id(), second.nonce())).isFalse();
    gate.release(first);
    decide(gate, second);
  }

  @Test
  void presentationSign_byAKeyThatIsNotTheLeafIssuer_isRefusedAtIssue() throws Exception {
    GrantChain chain = directChain(5_000);
    assertThatThrownBy(() -> Presentation.sign(OUTSIDER, chain, REQUEST.id()))
        .isInstanceOfSatisfying(
            IssuanceException.class,
            e -> assertThat(e.problem()).isEqualTo(IssuanceProblem.WRONG_KEY));
  }

  @Test
  void denialLabels_haveTheirStableWireStrings() {
    assertThat(DenialLabel.values())
        .extracting(DenialLabel::wire)
        .containsExactly(
            "malformed",
            "bad-signature",
            "broken-chain",
            "not-attenuated",
            "expired",
            "not-yet-valid",
            "revoked",
            "action-not-permitted",
            "resource-not-permitted",
            "caveat-unsatisfied",
            "unknown-caveat",
            "budget-exhausted",
            "wrong-holder",
            "not-issuer",
            "presentation-spent");
    for (DenialLabel l : DenialLabel.values()) {
      assertThat(DenialLabel.fromWire(l.wire())).isEqualTo(l);
    }
  }

  @Test
  void refusal_carriesAReadableReason() throws Exception {
    GrantRefusedException e = refused(() -> decide(gate(), present(directChain(10), REQUEST, 1)));
    assertThat(e.reason()).isNotBlank();
    assertThat(e.getMessage()).startsWith("budget-exhausted");
  }
}
