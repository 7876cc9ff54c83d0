package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;

class ShardTest {
  private static final long PARENT_BUDGET = 10_000;

  private static GrantChain parent() throws IssuanceException {
    return Jcp.issueRoot(ORG, CALLER_DID, PARENT_BUDGET, T0, T_END, ModelIn.of(WEIGHTS_A));
  }

  @Test
  void shard_makesOneSiblingPerStewardCarryingItsShare() throws Exception {
    GrantChain parent = parent();
    List<GrantChain> shards =
        Jcp.shard(
            CALLER,
            parent,
            List.of(new Shard(STEWARD_DID, 6_000), new Shard(OTHER_STEWARD_DID, 4_000)));
    assertThat(shards).hasSize(2);
    assertThat(shards.get(0).leaf().grant().subject()).isEqualTo(STEWARD_DID);
    assertThat(shards.get(0).leaf().grant().budgetUj()).isEqualTo(6_000);
    assertThat(shards.get(1).leaf().grant().subject()).isEqualTo(OTHER_STEWARD_DID);
    for (GrantChain c : shards) {
      assertThat(c.root()).isEqualTo(parent.root());
      assertThat(c.leaf().grant().parent()).contains(parent.leaf().id());
      assertThat(c.leaf().grant().caveats()).containsExactly(ModelIn.of(WEIGHTS_A));
      c.verify();
    }
  }

  @Test
  void shard_whoseSharesSumAboveTheParent_isRefused() throws Exception {
    IssuanceException e =
        assertThrows(
            IssuanceException.class,
            () ->
                Jcp.shard(
                    CALLER,
                    parent(),
                    List.of(new Shard(STEWARD_DID, 6_000), new Shard(OTHER_STEWARD_DID, 4_001))));
    assertThat(e.problem()).isEqualTo(IssuanceProblem.OVER_SUM);
  }

  @Test
  void shard_whoseSharesOverflowALong_isRefusedAsOverSum() throws Exception {
    GrantChain big = Jcp.issueRoot(ORG, CALLER_DID, Long.MAX_VALUE, T0, T_END);
    IssuanceException e =
        assertThrows(
            IssuanceException.class,
            () ->
                Jcp.shard(
                    CALLER,
                    big,
                    List.of(
                        new Shard(STEWARD_DID, Long.MAX_VALUE), new Shard(OTHER_STEWARD_DID, 1))));
    assertThat(e.problem()).isEqualTo(IssuanceProblem.OVER_SUM);
  }

  @Test
  void shard_namingAStewardTwiceOrNone_isRefused() throws Exception {
    assertThat(
            assertThrows(
                    IssuanceException.class,
                    () ->
                        Jcp.shard(
                            CALLER,
                            parent(),
                            List.of(new Shard(STEWARD_DID, 1), new Shard(STEWARD_DID, 1))))
                .problem())
        .isEqualTo(IssuanceProblem.BAD_SHARDS);
    assertThat(
            assertThrows(IssuanceException.class, () -> Jcp.shard(CALLER, parent(), List.of()))
                .problem())
        .isEqualTo(IssuanceProblem.BAD_SHARDS);
  }

  @Test
  void shard_byAKeyThatDoesNotHoldTheParent_isRefused() throws Exception {
    assertThat(
            assertThrows(
                    IssuanceException.class,
                    () -> Jcp.shard(OUTSIDER, parent(), List.of(new Shard(STEWARD_DID, 1))))
                .problem())
        .isEqualTo(IssuanceProblem.WRONG_KEY);
  }

  /** The parent split in two equal shards, for STEWARD and OTHER_STEWARD. */
  private static List<GrantChain> halves() throws IssuanceException {
    return Jcp.shard(
        CALLER,
        parent(),
        List.of(new Shard(STEWARD_DID, 5_000), new Shard(OTHER_STEWARD_DID, 5_000)));
  }

  @Test
  void aShardHeldByAnotherSteward_isRefusedAsWrongHolder() throws Exception {
    List<GrantChain> shards = halves();
    GrantRefusedException e =
        assertThrows(
            GrantRefusedException.class, () -> decide(gate(), present(shards.get(1), REQUEST, 1)));
    assertThat(e.label()).isEqualTo(DenialLabel.WRONG_HOLDER);
  }

  @Test
  void shardedBudget_spendsIndependentlyAtTwoStewards_andTheSumStaysWithinTheParent()
      throws Exception {
    List<GrantChain> shards =
        Jcp.shard(
            CALLER,
            parent(),
            List.of(new Shard(STEWARD_DID, 6_000), new Shard(OTHER_STEWARD_DID, 4_000)));
    Gate one = gate();
    Gate two = Gate.create(OTHER_STEWARD_DID, SpendLedger.inMemory(), Revocations.none());
    long spentOne = spendUntilRefused(one, shards.get(0), 100);
    long spentTwo = spendUntilRefused(two, shards.get(1), 200);
    assertThat(spentOne).isEqualTo(6_000);
    assertThat(spentTwo).isEqualTo(4_000);
    assertThat(spentOne + spentTwo).isLessThanOrEqualTo(PARENT_BUDGET);
    // Each steward debited the shared root only with its own serves.
    GrantId root = shards.get(0).root().id();
    assertThat(one.ledger().spend(root).debitedUj()).isEqualTo(6_000);
    assertThat(two.ledger().spend(root).debitedUj()).isEqualTo(4_000);
  }

  /**
   * Regression: a ceiling above both a shard and its parent named only the parent, the first short
   * link from the root, with the parent's larger figure (the README's sharding tour: 198040 µJ on
   * the team grant, where the 100000 µJ shard had 98040 left). The refusal now names the shard, the
   * link that binds, with what it has left, and the parent as also short.
   */
  @Test
  void ceilingAboveAShardAndItsParent_isRefusedNamingTheShardFirst_andTheParentToo()
      throws Exception {
    List<GrantChain> shards = halves();
    GrantChain shard = shards.get(0);
    Gate gate = gate();
    gate.debit(decide(gate, present(shard, REQUEST, 1)), 40);
    ServeRequest big = request("big", PARENT_BUDGET - 10);
    GrantRefusedException e =
        assertThrows(
            GrantRefusedException.class,
            () -> gate.decide(present(shard, big, 2), big, Optional.of(WEIGHTS_A), NOW));
    assertThat(e.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(e.link()).hasValue(1);
    assertThat(e.reason())
        .startsWith("link " + shard.leaf().id() + " has 4960 µJ left, below the 9990 µJ ceiling")
        .contains("also below it: link 0, " + shard.root().id() + ", with 9960 µJ left");
  }

  /**
   * Serves CEILING-µJ requests, each debited in full, until the gate refuses; returns the total.
   */
  private static long spendUntilRefused(Gate gate, GrantChain chain, int firstNonce)
      throws Exception {
    long spent = 0;
    for (int n = firstNonce; ; n++) {
      Authorisation a;
      try {
        a = gate.decide(present(chain, REQUEST, n), REQUEST, Optional.of(WEIGHTS_A), NOW);
      } catch (GrantRefusedException e) {
        assertThat(e.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
        return spent;
      }
      spent += gate.debit(a, CEILING).debitedUj();
    }
  }
}
