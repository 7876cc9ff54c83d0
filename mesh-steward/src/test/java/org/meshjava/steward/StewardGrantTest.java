package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.MaxCostUj;
import org.meshjava.jcp.ModelIn;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Shard;
import org.meshjava.journal.JournalEntry;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.router.Inadmissibility;

class StewardGrantTest {
  final GrantFixture f = new GrantFixture();

  @Test
  void grantedServe_sealsTheLeafGrantId_andDebitsTheMeteredJoulesOnEveryLink() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    DurableMemoryJournal journal = new DurableMemoryJournal();
    try (Steward s = f.steward(journal).build()) {
      ServeRequest req = GrantFixture.request("hello", 10, 100_000);
      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      MeshReceipt receipt = Jcr1.open(r.envelope()).receipt();
      assertThat(receipt.grantId()).contains(chain.leaf().id().contentId());
      assertThat(receipt.grantBreach()).isEmpty();
      long metered = receipt.energy().uj();
      assertThat(metered).isEqualTo(100 * (5 + 10));
      for (var link : chain.ids()) {
        assertThat(s.spend().spend(link).debitedUj()).isEqualTo(metered);
        assertThat(s.spend().spend(link).reservedUj()).isZero();
      }
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000 - metered);
      assertThat(journal.records())
          .extracting(rec -> rec.entry().getClass().getSimpleName())
          .containsExactly("Chain", "Authorised", "Debited", "Sealed");
    }
  }

  @Test
  void authorisation_isJournalled_beforeTheEngineRuns() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    DurableMemoryJournal journal = new DurableMemoryJournal();
    AtomicInteger recordsWhenEngineRan = new AtomicInteger(-1);
    ServingEngine spy =
        new Delegating(ReferenceEngine.builder().name("spy").build()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p)
              throws org.meshjava.core.EngineException {
            recordsWhenEngineRan.set(journal.records().size());
            return super.serve(r, p);
          }
        };
    try (Steward s = f.bare(journal).backend(spy).build()) {
      ServeRequest req = GrantFixture.request("hello", 4, 100_000);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      // The chain (recorded once) and the authorisation were journalled before the engine ran.
      assertThat(recordsWhenEngineRan.get()).isEqualTo(2);
      assertThat(journal.records().get(1).entry()).isInstanceOf(JournalEntry.Authorised.class);
    }
  }

  @Test
  void callerWhoIsNotTheLeafIssuer_isRefusedAsNotIssuer_andNothingRuns() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    SigningKey thief = SigningKey.generate();
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest req = GrantFixture.request("hello", 4, 100_000);
      // A validly signed presentation, but by someone who is not the leaf's issuer.
      DidKey thiefId = DidKey.of(thief.verificationKey());
      var nonce = org.meshjava.jcp.PresentationNonce.random();
      byte[] sig =
          thief.sign(Presentation.signedPayload(req.id(), chain.leaf().id(), thiefId, nonce));
      Presentation stolen = Presentation.of(chain, thiefId, nonce, sig);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), stolen))
          .isInstanceOfSatisfying(
              NotIssuerException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.NOT_ISSUER));
      assertThat(s.head().nextSequence()).isZero();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000);
    }
  }

  @Test
  void presentationSignedForAnotherRequest_isRefusedAsUnauthenticated() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest signedFor = GrantFixture.request("one", 4, 100_000);
      ServeRequest served = GrantFixture.request("two", 4, 100_000);
      Presentation p = f.present(chain, signedFor);
      assertThatThrownBy(() -> s.serve(served, GrantFixture.payload(served), p))
          .isInstanceOf(NotIssuerException.class);
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  @Test
  void samePresentationTwice_isRefusedTheSecondTime_andAFreshNonceIsServedAndDebitedAgain()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest req = GrantFixture.request("again", 4, 100_000);
      Presentation p = f.present(chain, req);
      s.serve(req, GrantFixture.payload(req), p);
      long afterOne = s.spend().remainingUj(chain);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), p))
          .isInstanceOfSatisfying(
              GrantDeniedException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT));
      assertThat(s.spend().remainingUj(chain)).isEqualTo(afterOne);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      assertThat(s.spend().remainingUj(chain)).isEqualTo(afterOne - (1_000_000 - afterOne));
      assertThat(s.head().nextSequence()).isEqualTo(2);
    }
  }

  @Test
  void maxCostBreach_debitsAnyway_sealsGrantBreach_andLaterServesSeeLessBudget() throws Exception {
    GrantChain chain = f.chain(1_000_000, new MaxCostUj(1_000));
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest req = GrantFixture.request("expensive", 20, 100_000);
      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      long metered = r.receipt().energy().uj();
      assertThat(metered).isGreaterThan(1_000);
      assertThat(Jcr1.open(r.envelope()).receipt().grantBreach())
          .contains(org.meshjava.core.DenialLabel.CAVEAT_UNSATISFIED);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000 - metered);
    }
  }

  @Test
  void remainingBudgetBelowTheCeiling_isRefused_withBudgetExhausted() throws Exception {
    GrantChain chain = f.chain(50_000);
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest req = GrantFixture.request("big", 4, 60_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              GrantDeniedException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED));
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  @Test
  void expiredGrant_isRefused_beforeAnyWork() throws Exception {
    GrantChain root =
        Jcp.issueRoot(
            f.org,
            Jcp.identity(f.caller),
            1_000_000,
            GrantFixture.NOW.minusSeconds(7200),
            GrantFixture.NOW.minusSeconds(3600));
    GrantChain chain = Jcp.delegate(f.caller, root, f.steward, 1_000_000);
    AtomicInteger calls = new AtomicInteger();
    ServingEngine counting =
        new Delegating(ReferenceEngine.builder().name("c").build()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p)
              throws org.meshjava.core.EngineException {
            calls.incrementAndGet();
            return super.serve(r, p);
          }
        };
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(counting).build()) {
      ServeRequest req = GrantFixture.request("late", 4, 100_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              GrantDeniedException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.EXPIRED));
      assertThat(calls).hasValue(0);
    }
  }

  @Test
  void grantHeldByAnotherSteward_isRefused_withWrongHolder() throws Exception {
    SigningKey otherSteward = SigningKey.generate();
    GrantChain root =
        Jcp.issueRoot(
            f.org,
            Jcp.identity(f.caller),
            1_000_000,
            GrantFixture.NOW.minusSeconds(60),
            GrantFixture.NOW.plusSeconds(3600));
    GrantChain forOther =
        Jcp.delegate(f.caller, root, DidKey.of(otherSteward.verificationKey()), 1_000_000);
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest req = GrantFixture.request("mine?", 4, 100_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(forOther, req)))
          .isInstanceOfSatisfying(
              GrantDeniedException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.WRONG_HOLDER));
    }
  }

  @Test
  void shardedBudget_spendsIndependentlyAtTwoStewards_andTheSumStaysWithinTheParent()
      throws Exception {
    SigningKey keyA = SigningKey.generate();
    SigningKey keyB = SigningKey.generate();
    DidKey a = DidKey.of(keyA.verificationKey());
    DidKey b = DidKey.of(keyB.verificationKey());
    GrantChain parent =
        Jcp.issueRoot(
            f.org,
            Jcp.identity(f.caller),
            30_000,
            GrantFixture.NOW.minusSeconds(60),
            GrantFixture.NOW.plusSeconds(3600));
    List<GrantChain> shards =
        Jcp.shard(f.caller, parent, List.of(new Shard(a, 20_000), new Shard(b, 10_000)));
    long total = 0;
    for (int i = 0; i < 2; i++) {
      SigningKey key = i == 0 ? keyA : keyB;
      GrantChain shard = shards.get(i);
      try (Steward s =
          Steward.builder(key)
              .meter(new org.meshjava.energy.EstimatorMeter())
              .clock(java.time.InstantSource.fixed(GrantFixture.NOW))
              .journal(new DurableMemoryJournal())
              .chainHead(org.meshjava.receipt.ChainHead.GENESIS)
              .backend(
                  ReferenceEngine.builder()
                      .costProfile(CostProfile.perToken(100))
                      .workPerToken(1)
                      .build())
              .build()) {
        int served = 0;
        while (true) {
          ServeRequest req = GrantFixture.request("shard " + i + " serve " + served, 4, 2_500);
          try {
            total +=
                s.serve(req, GrantFixture.payload(req), f.present(shard, req))
                    .receipt()
                    .energy()
                    .uj();
            served++;
          } catch (GrantDeniedException e) {
            assertThat(e.label()).isEqualTo(DenialLabel.BUDGET_EXHAUSTED);
            break;
          }
        }
        assertThat(served).isPositive();
      }
    }
    assertThat(total).isLessThanOrEqualTo(30_000);
    assertThatThrownBy(
            () -> Jcp.shard(f.caller, parent, List.of(new Shard(a, 20_001), new Shard(b, 10_000))))
        .isInstanceOf(org.meshjava.jcp.IssuanceException.class);
  }

  @Test
  void underModelIn_aBackendWithoutWeightsOrWithOtherWeights_isInadmissible_andSaysWhy()
      throws Exception {
    ContentId permitted = ContentId.ofBytes(new byte[] {1});
    ContentId other = ContentId.ofBytes(new byte[] {2});
    GrantChain chain = f.chain(1_000_000, ModelIn.of(permitted));
    ServingEngine cheapNoWeights =
        ReferenceEngine.builder().name("cheap").costProfile(CostProfile.perToken(1)).build();
    ServingEngine midOther =
        new Weighted(
            ReferenceEngine.builder().name("mid").costProfile(CostProfile.perToken(5)).build(),
            other);
    ServingEngine dearPermitted =
        new Weighted(
            ReferenceEngine.builder().name("dear").costProfile(CostProfile.perToken(50)).build(),
            permitted);
    try (Steward s =
        f.bare(new DurableMemoryJournal())
            .backend(cheapNoWeights)
            .backend(midOther)
            .backend(dearPermitted)
            .build()) {
      ServeRequest req = GrantFixture.request("which model", 4, 100_000);
      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      assertThat(r.route().chosen().name()).isEqualTo("dear");
      assertThat(r.route().candidates())
          .filteredOn(c -> !c.admissible())
          .extracting(c -> c.inadmissibility().orElseThrow().kind())
          .containsExactly(Inadmissibility.Kind.NOT_PERMITTED, Inadmissibility.Kind.NOT_PERMITTED);
      assertThat(r.route().candidates().get(0).inadmissibility().orElseThrow().detail())
          .contains("names no weights");
      assertThat(r.receipt().weights().map(WeightsBinding::digest)).contains(permitted);
      // Ungranted, the cheapest wins: ModelIn binds only serves on that grant.
      assertThat(s.serve(req, GrantFixture.payload(req)).route().chosen().name())
          .isEqualTo("cheap");
    }
  }

  @Test
  void manyThreadsOnOneGrant_neverOverspendIt() throws Exception {
    long budget = 200_000;
    GrantChain chain = f.chain(budget);
    AtomicLong debited = new AtomicLong();
    AtomicInteger refused = new AtomicInteger();
    try (Steward s = f.steward(new DurableMemoryJournal()).build();
        ExecutorService pool = Executors.newFixedThreadPool(8)) {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        fs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 40; i++) {
                    ServeRequest req = GrantFixture.request("t" + thread + " i" + i, 8, 2_000);
                    try {
                      debited.addAndGet(
                          s.serve(req, GrantFixture.payload(req), f.present(chain, req))
                              .receipt()
                              .energy()
                              .uj());
                    } catch (GrantDeniedException e) {
                      refused.incrementAndGet();
                    }
                    for (var link : chain.ids()) {
                      var spend = s.spend().spend(link);
                      assertThat(spend.debitedUj() + spend.reservedUj())
                          .isLessThanOrEqualTo(budget);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> fu : fs) {
        fu.get();
      }
      assertThat(debited.get()).isLessThanOrEqualTo(budget);
      assertThat(refused.get()).isPositive();
      for (var link : chain.ids()) {
        assertThat(s.spend().spend(link).debitedUj()).isEqualTo(debited.get());
      }
    }
  }

  @Test
  void ungrantedServes_goOnWhileGrantsAreSuspended() throws Exception {
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      ServeRequest req = GrantFixture.request("plain", 4, 100_000);
      ServeResult first = s.serve(req, GrantFixture.payload(req));
      // A receipt from another life of this steward that the journal never recorded.
      MeshReceipt forged =
          first.receipt().toBuilder().chain(5, Optional.of(first.envelope().id())).build();
      var sealed = Jcr1.seal(forged, f.stewardKey);
      assertThat(s.witness(first.receipt(), first.envelope())).isEqualTo(WitnessVerdict.HELD);
      assertThat(s.witness(sealed.receipt(), sealed.envelope())).isEqualTo(WitnessVerdict.NOT_HELD);
      assertThat(s.grantsSuspended()).isPresent();
      GrantChain chain = f.chain(1_000_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOf(GrantsSuspendedException.class);
      assertThat(s.serve(req, GrantFixture.payload(req)).receipt().sequence()).isEqualTo(1);
    }
  }

  @Test
  void witness_refusesAnEnvelopeThatIsNotThisStewards() throws Exception {
    try (Steward mine = f.steward(new DurableMemoryJournal()).build();
        Steward other =
            Steward.ephemeral()
                .meter(new org.meshjava.energy.EstimatorMeter())
                .backend(ReferenceEngine.builder().build())
                .build()) {
      ServeRequest req = GrantFixture.request("x", 2, 100_000);
      ServeResult theirs = other.serve(req, GrantFixture.payload(req));
      assertThatThrownBy(() -> mine.witness(theirs.receipt(), theirs.envelope()))
          .isInstanceOf(org.meshjava.receipt.ReceiptException.class);
      assertThat(mine.grantsSuspended()).isEmpty();
    }
  }

  /** Forwards everything to another engine. */
  static class Delegating extends ForwardingEngine {
    Delegating(ServingEngine inner) {
      super(inner);
    }
  }

  /** A delegating engine that runs one serve at a time and queues none (others: BACKEND_BUSY). */
  static class OneAtATime extends Delegating {
    OneAtATime(ServingEngine inner) {
      super(inner);
    }

    @Override
    public int maxConcurrentServes() {
      return 1;
    }

    @Override
    public int maxWaitingServes() {
      return 0;
    }
  }

  /** An engine that names weights. */
  static final class Weighted extends Delegating {
    final WeightsBinding binding;

    Weighted(ServingEngine inner, ContentId digest) {
      super(inner);
      this.binding = new WeightsBinding(digest, "fp32");
    }

    @Override
    public Optional<WeightsBinding> weights() {
      return Optional.of(binding);
    }
  }
}
