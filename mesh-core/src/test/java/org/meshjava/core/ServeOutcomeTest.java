package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a backend reports (§5), what an engine returns, and the decision shape (§3.6). */
class ServeOutcomeTest {

  private static ServeOutcome outcome(
      long in, long out, long acc, long cache, long prop, long spec) {
    return new ServeOutcome(in, out, acc, cache, prop, spec, Optional.empty(), Optional.empty());
  }

  @Test
  void counters_outsideU32_areRefused_namingTheField() {
    long big = 1L << 32;
    assertThatThrownBy(() -> outcome(big, 0, 0, 0, 0, 0)).hasMessageContaining("tokens_in");
    assertThatThrownBy(() -> outcome(0, -1, 0, 0, 0, 0)).hasMessageContaining("tokens_out");
    assertThatThrownBy(() -> outcome(0, 0, big, 0, 0, 0)).hasMessageContaining("tokens_accepted");
    assertThatThrownBy(() -> outcome(0, 0, 0, big, 0, 0)).hasMessageContaining("cache_hit_tokens");
    assertThatThrownBy(() -> outcome(0, 0, 0, 0, big, 0)).hasMessageContaining("spec_proposed");
    assertThatThrownBy(() -> outcome(0, 0, 0, 0, 0, -1)).hasMessageContaining("spec_accepted");
    assertThat(outcome(0xFFFF_FFFFL, 0, 0, 0, 0, 0).tokensIn()).isEqualTo(0xFFFF_FFFFL);
  }

  @Test
  void specAccepted_aboveSpecProposed_isRefused() {
    assertThatThrownBy(() -> outcome(0, 0, 0, 0, 2, 3))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(outcome(0, 0, 0, 0, 3, 3).counters().specAccepted()).isEqualTo(3);
  }

  @Test
  void greedy_acceptsEveryEmittedToken() {
    ServeOutcome o = ServeOutcome.greedy(10, 4);
    assertThat(o.counters().tokensAccepted()).isEqualTo(4);
    assertThat(o.deliveredFidelity()).isEmpty();
    assertThat(o.withDeliveredFidelity(Fidelity.F2).deliveredFidelity()).contains(Fidelity.F2);
    assertThat(o.withDeliveredFidelity(Fidelity.F2).tokensOut()).isEqualTo(4);
  }

  @Test
  void engineResult_whenTokenCountDisagrees_isRefused() {
    assertThatThrownBy(() -> new EngineResult(TokenSequence.of(1, 2), ServeOutcome.greedy(1, 3)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new EngineResult(TokenSequence.of(1, 2), ServeOutcome.greedy(1, 2)).tokens().size())
        .isEqualTo(2);
  }

  @Test
  void engineResult_remoteCounted_mayDifferFromTheCommittedIds_onlyWhenDeclared() {
    // 23 code points committed, 7 tokens as the remote counts them.
    EngineResult remote =
        new EngineResult(
            TokenSequence.of(new int[23]), ServeOutcome.greedy(5, 7), TokenAccounting.REMOTE_USAGE);
    assertThat(remote.outcome().tokensOut()).isEqualTo(7);
    assertThatThrownBy(
            () ->
                new EngineResult(
                    TokenSequence.of(new int[23]),
                    ServeOutcome.greedy(5, 7),
                    TokenAccounting.EMITTED))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(TokenAccounting.EMITTED.admits(TokenAccounting.REMOTE_USAGE)).isFalse();
    assertThat(TokenAccounting.EMITTED.admits(TokenAccounting.REMOTE_STREAM_DELTAS)).isFalse();
    assertThat(TokenAccounting.REMOTE_USAGE.admits(TokenAccounting.REMOTE_STREAM_DELTAS)).isTrue();
    assertThat(TokenAccounting.REMOTE_USAGE.admits(TokenAccounting.EMITTED)).isFalse();
    assertThat(TokenAccounting.REMOTE_STREAM_DELTAS.admits(TokenAccounting.REMOTE_USAGE)).isFalse();
  }

  @Test
  void decisionShape_needsAQuestionAndAtLeastAnOptionPerQuestion() {
    assertThatThrownBy(() -> new DecisionShape(0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecisionShape(3, 2, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DecisionShape(1, 1L << 32, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new DecisionShape(3, 3, 0).optionsScored()).isEqualTo(3);
  }

  @Test
  void energyDomain_refusesNegativeIndex_andPrintsKindAndIndex() {
    assertThatThrownBy(() -> EnergyDomain.gpu(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(EnergyDomain.cpuPackage(0)).hasToString("cpu_package:0");
    assertThat(EnergyDomain.dram(1)).hasToString("dram:1");
  }

  @Test
  void nonceSource_fixed_copiesAndRefusesWrongLength() {
    byte[] nonce = new byte[16];
    NonceSource fixed = NonceSource.fixed(nonce);
    nonce[0] = 1;
    assertThat(fixed.next()).isEqualTo(new byte[16]);
    fixed.next()[0] = 1;
    assertThat(fixed.next()).isEqualTo(new byte[16]);
    assertThatThrownBy(() -> NonceSource.fixed(new byte[15]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(NonceSource.secureRandom().next()).hasSize(16);
  }
}
