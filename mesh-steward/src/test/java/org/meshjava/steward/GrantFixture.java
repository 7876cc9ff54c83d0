package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.Caveat;
import org.meshjava.jcp.Grant;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.jcp.SignedGrant;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.receipt.ChainHead;

/** Keys, grants and stewards for the grant tests. Fixed clock: decisions happen at {@link #NOW}. */
final class GrantFixture {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  final SigningKey stewardKey = SigningKey.generate();
  final DidKey steward = DidKey.of(stewardKey.verificationKey());
  final SigningKey org = SigningKey.generate();
  final SigningKey caller = SigningKey.generate();

  /** A root grant from org to caller, then a delegation from caller to the steward. */
  GrantChain chain(long budgetUj, Caveat... leafCaveats) throws Exception {
    return Jcp.delegate(caller, rootToCaller(budgetUj), steward, budgetUj, leafCaveats);
  }

  /**
   * The root of {@link #chain}: org's grant to caller, valid from a minute before NOW for an hour.
   */
  GrantChain rootToCaller(long budgetUj) throws Exception {
    return Jcp.issueRoot(
        org, Jcp.identity(caller), budgetUj, NOW.minusSeconds(60), NOW.plusSeconds(3600));
  }

  /**
   * A chain a client makes up: a root claiming that the org issued {@code forger} a grant of {@code
   * budgetUj}, signed by the forger itself (the org never signed it), then a genuine delegation
   * from the forger to the steward. The forger is the leaf's issuer, so it presents the chain
   * correctly ({@link Jcp#present}); only the root's signature is false ({@code bad-signature} at
   * link 0).
   */
  GrantChain madeUpChain(SigningKey forger, long budgetUj) throws Exception {
    Grant claimed =
        Grant.builder()
            .issuer(Jcp.identity(org))
            .subject(Jcp.identity(forger))
            .budgetUj(budgetUj)
            .window(NOW.minusSeconds(60), NOW.plusSeconds(3600))
            .build();
    GrantChain root = GrantChain.of(SignedGrant.of(claimed, forger.sign(claimed.encode())));
    return Jcp.delegate(forger, root, steward, budgetUj);
  }

  /**
   * The org's revocation of {@code chain} with its time moved an hour earlier after signing: the
   * signature no longer covers the statement ({@code bad-signature}).
   */
  Revocation forgedRevocation(GrantChain chain) throws Exception {
    Revocation genuine = Revocation.sign(org, chain, NOW);
    return Revocation.of(chain, genuine.revoker(), NOW.minusSeconds(3600), genuine.signature());
  }

  /**
   * A steward on {@code journal} with no backend yet. The fixture's key is this test identity's
   * only one, so a journal that records no receipt starts its chain at 0.
   */
  Steward.Builder bare(Journal journal) {
    return genesisIfNoReceipt(
        Steward.builder(stewardKey)
            .meter(new EstimatorMeter())
            .clock(InstantSource.fixed(NOW))
            .journal(journal),
        journal);
  }

  /**
   * Starts a test identity's chain at 0 when {@code journal} records no receipt, as its operator
   * would on first start; a journal that records receipts sets the head itself.
   */
  static Steward.Builder genesisIfNoReceipt(Steward.Builder b, Journal journal) {
    java.util.List<org.meshjava.journal.JournalRecord> records;
    try {
      records = journal.recovered();
    } catch (IllegalStateException unreadable) {
      return b; // the build refuses the journal first
    }
    if (records.stream().noneMatch(r -> r.entry() instanceof JournalEntry.Sealed)) {
      b.chainHead(ChainHead.GENESIS);
    }
    return b;
  }

  Steward.Builder steward(Journal journal) {
    return bare(journal).backend(ref());
  }

  /** The backend {@link #steward} serves on: the reference engine "ref", 100 µJ a token. */
  static ReferenceEngine ref() {
    return ReferenceEngine.builder()
        .name("ref")
        .costProfile(CostProfile.perToken(100))
        .workPerToken(1)
        .build();
  }

  static ServeRequest request(String prompt, long maxTokens, long ceilingUj) {
    byte[] b = prompt.getBytes(StandardCharsets.UTF_8);
    return ServeRequest.generation(
        ContentId.ofBytes(b), b.length, new ServeBounds(maxTokens, Fidelity.F1, ceilingUj));
  }

  static TokenSequence payload(ServeRequest r) {
    return TokenSequence.of(new int[(int) r.promptTokens()]);
  }

  Presentation present(GrantChain chain, ServeRequest request) throws Exception {
    return Jcp.present(caller, chain, request);
  }

  /**
   * Serves {@code request} on {@code s} under {@code chain}, which must be refused {@code
   * ENGINE_FAILED}: the refusal.
   */
  ServeException refusedEngineFailed(Steward s, GrantChain chain, ServeRequest request) {
    Throwable t = catchThrowable(() -> s.serve(request, payload(request), present(chain, request)));
    assertThat(t)
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
    return (ServeException) t;
  }
}
