package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.core.DenialLabel;

/**
 * Each dimension of attenuation, widened by a child: the gate refuses the chain with {@code
 * not-attenuated} at link 1, and {@link Jcp#delegate} refuses to sign it.
 */
class AttenuationTest {
  private static final long BUDGET = 50_000;

  /** The parent: ORG → CALLER, narrow in every dimension so each can be widened. */
  static GrantChain parent() throws IssuanceException {
    Grant g =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .actions(Set.of(Grant.INFER))
            .resources(Resources.only(Set.of(REQUEST.id())))
            .budgetUj(BUDGET)
            .window(T0, T_END)
            .caveat(ModelIn.of(WEIGHTS_A, WEIGHTS_B))
            .caveat(new MaxCostUj(5_000))
            .build();
    return Jcp.issueRoot(ORG, g);
  }

  static Stream<Arguments> widenings() {
    return Stream.of(
        widen("actions", b -> b.actions(Set.of(Grant.INFER, "embed"))),
        widen("resources to all", b -> b.resources(Resources.all())),
        widen(
            "resources to a superset",
            b -> b.resources(Resources.only(Set.of(REQUEST.id(), OTHER_REQUEST.id())))),
        widen("budget", b -> b.budgetUj(BUDGET + 1)),
        widen("not_before earlier", b -> b.window(T0.minusSeconds(1), T_END)),
        widen("expiry later", b -> b.window(T0, T_END.plusSeconds(1))),
        widen("ModelIn dropped", b -> b.caveats(List.of(new MaxCostUj(5_000)))),
        widen(
            "ModelIn widened",
            b ->
                b.caveats(
                    List.of(ModelIn.of(WEIGHTS_A, WEIGHTS_B, WEIGHTS_C), new MaxCostUj(5_000)))),
        widen("MaxCostUj dropped", b -> b.caveats(List.of(ModelIn.of(WEIGHTS_A)))),
        widen(
            "MaxCostUj raised",
            b -> b.caveats(List.of(ModelIn.of(WEIGHTS_A), new MaxCostUj(5_001)))));
  }

  private static Arguments widen(String dimension, UnaryOperator<Grant.Builder> change) {
    return Arguments.of(dimension, change);
  }

  private static Grant child(GrantChain parent, UnaryOperator<Grant.Builder> change) {
    return change.apply(Grant.delegatedFrom(parent.leaf()).subject(STEWARD_DID)).build();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("widenings")
  void gate_whenAChildWidens_refusesNotAttenuated(
      String dimension, UnaryOperator<Grant.Builder> change) throws Exception {
    GrantChain parent = parent();
    GrantChain chain = parent.extend(SignedGrant.sign(CALLER, child(parent, change)));
    GrantRefusedException e =
        assertThrows(GrantRefusedException.class, () -> decide(gate(), present(chain, REQUEST, 1)));
    assertThat(e.label()).as(dimension).isEqualTo(DenialLabel.NOT_ATTENUATED);
    assertThat(e.link()).hasValue(1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("widenings")
  void delegate_whenAChildWidens_refusesToSign(
      String dimension, UnaryOperator<Grant.Builder> change) throws Exception {
    GrantChain parent = parent();
    IssuanceException e =
        assertThrows(
            IssuanceException.class, () -> Jcp.delegate(CALLER, parent, child(parent, change)));
    assertThat(e.problem()).as(dimension).isEqualTo(IssuanceProblem.NOT_ATTENUATED);
  }

  @Test
  void gate_whenAChildNarrowsEveryDimension_admits() throws Exception {
    GrantChain parent = parent();
    Grant narrow =
        Grant.delegatedFrom(parent.leaf())
            .subject(STEWARD_DID)
            .budgetUj(BUDGET - 1)
            .window(T0.plusSeconds(1), T_END.minusSeconds(1))
            .caveats(List.of(ModelIn.of(WEIGHTS_A), new MaxCostUj(4_000)))
            .build();
    GrantChain chain = Jcp.delegate(CALLER, parent, narrow);
    decide(gate(), present(chain, REQUEST, 1));
  }

  @Test
  void gate_whenAChildAddsACaveat_admits() throws Exception {
    GrantChain parent = parent();
    GrantChain chain = Jcp.delegate(CALLER, parent, STEWARD_DID, BUDGET, new MaxCostUj(100_000));
    decide(gate(), present(chain, REQUEST, 1));
  }

  @Test
  void delegate_byAKeyThatDoesNotHoldTheLeaf_isRefused() throws Exception {
    GrantChain parent = parent();
    IssuanceException e =
        assertThrows(
            IssuanceException.class, () -> Jcp.delegate(OUTSIDER, parent, STEWARD_DID, 10));
    assertThat(e.problem()).isEqualTo(IssuanceProblem.WRONG_KEY);
  }

  @Test
  void delegate_ofAChildNamingAnotherParent_isRefused() throws Exception {
    GrantChain parent = parent();
    GrantChain other = Jcp.issueRoot(ORG, CALLER_DID, 10, T0, T_END);
    Grant child = Grant.delegatedFrom(other.leaf()).subject(STEWARD_DID).build();
    IssuanceException e =
        assertThrows(IssuanceException.class, () -> Jcp.delegate(CALLER, parent, child));
    assertThat(e.problem()).isEqualTo(IssuanceProblem.BROKEN_CHAIN);
  }
}
