package org.meshjava.journal;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.MaxCostUj;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.jcp.Revocation;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.Nonce;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * Builds the journal a steward writes, record by record, with real grants, presentations and
 * receipts sealed by the steward's key, so the journal's own tests can replay, snapshot and tamper
 * with histories without a steward (mesh-steward depends on this module, not the other way). The
 * records are chained by an {@link InMemoryJournal}, exactly as the file journal chains them. Test
 * support only.
 */
final class JournalHistory {
  static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");
  static final SigningKey STEWARD = key(1);
  static final SigningKey ISSUER = key(2);
  static final SigningKey CALLER = key(3);
  static final SigningKey OTHER = key(4);
  static final DidKey STEWARD_ID = DidKey.of(STEWARD.verificationKey());

  /** A serve's joule ceiling: what an authorisation reserves. */
  static final long CEILING = 10_000;

  /** The leaf's {@link MaxCostUj}: a debit above it breaches the grant. */
  static final long MAX_COST = 5_000;

  static final String BREACH = "caveat-unsatisfied";

  /** Root from {@link #ISSUER} to {@link #CALLER}, delegated to the steward with a cost caveat. */
  static final GrantChain CHAIN = chain(CALLER, STEWARD_ID);

  final InMemoryJournal journal = new InMemoryJournal();
  final MerkleTree tree = new MerkleTree();
  private long nextReceipt;
  private Optional<ContentId> lastEnvelope = Optional.empty();

  static SigningKey key(int b) {
    byte[] seed = new byte[32];
    Arrays.fill(seed, (byte) (b * 37));
    seed[0] = (byte) b;
    return SigningKey.fromSeed(seed);
  }

  static GrantChain chain(SigningKey caller, DidKey steward) {
    try {
      GrantChain root =
          Jcp.issueRoot(
              ISSUER, Jcp.identity(caller), 1_000_000, T0.minusSeconds(60), T0.plusSeconds(3600));
      return Jcp.delegate(caller, root, steward, 100_000, new MaxCostUj(MAX_COST));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A fresh gate for the steward. */
  static Gate gate() {
    return Gate.create(STEWARD_ID, SpendLedger.inMemory(), Revocations.none());
  }

  static ServeRequest request(int i) {
    return ServeRequest.generation(
        ContentId.ofBytes(new byte[] {(byte) i, 1}),
        3,
        new org.meshjava.core.ServeBounds(4, Fidelity.F1, CEILING));
  }

  static PresentationNonce nonce(int i) {
    byte[] n = new byte[PresentationNonce.LENGTH];
    Arrays.fill(n, (byte) i);
    return PresentationNonce.of(n);
  }

  /** Serve {@code i}'s authorisation, decided {@code i} seconds after {@link #T0}. */
  static JournalEntry.Authorised authorised(int i) {
    return authorised(i, T0.plusSeconds(i));
  }

  static JournalEntry.Authorised authorised(int i, Instant at) {
    try {
      ServeRequest req = request(i);
      Presentation p = Presentation.sign(CALLER, CHAIN, req.id(), nonce(i));
      return new JournalEntry.Authorised(p, req, Optional.empty(), "backend-" + i, at);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static Optional<String> breachOf(long uj) {
    return uj > MAX_COST ? Optional.of(BREACH) : Optional.empty();
  }

  static JournalEntry.Debited debited(long authorised, long uj) {
    return new JournalEntry.Debited(authorised, Energy.estimated(uj), uj, breachOf(uj));
  }

  /** The receipt the steward seals for serve {@code i} at the next place in its chain. */
  MeshReceipt.Builder receipt(int i, long uj) {
    byte[] n = new byte[Nonce.LENGTH];
    Arrays.fill(n, (byte) i);
    return MeshReceipt.builder()
        .requestId(request(i).id())
        .grantId(Optional.of(authorised(i).presentation().grantId().contentId()))
        .backend("backend-" + i)
        .recipe("recipe")
        .route("route")
        .counters(new OutcomeCounters(3, 4, 4, 0, 0, 0))
        .fidelityFloor(Fidelity.F1)
        .fidelityMet(true)
        .energy(Energy.estimated(uj))
        .grantBreach(breachOf(uj).map(org.meshjava.core.DenialLabel::fromWire))
        .chain(nextReceipt, lastEnvelope)
        .nonce(Nonce.of(n))
        .steward(STEWARD_ID);
  }

  static Envelope seal(MeshReceipt.Builder receipt, SigningKey key) {
    return Jcr1.seal(receipt.build(), key).envelope();
  }

  long append(JournalEntry e) {
    try {
      return journal.append(e).seq();
    } catch (JournalException x) {
      throw new IllegalStateException(x);
    }
  }

  long authorise(int i) {
    return append(authorised(i));
  }

  long debit(long authorised, long uj) {
    return append(debited(authorised, uj));
  }

  /** Records {@code envelope} as the next granted receipt, settling {@code authorised}. */
  long sealGranted(long authorised, Envelope envelope) {
    long seq = append(JournalEntry.Sealed.granted(nextReceipt, envelope, authorised));
    advance(envelope.id());
    return seq;
  }

  long sealGranted(long authorised, int i, long uj) {
    return sealGranted(authorised, seal(receipt(i, uj), STEWARD));
  }

  /** Records an ungranted receipt. */
  long sealUngranted(int i) {
    ContentId id =
        ContentId.ofBytes(("ungranted " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    long seq = append(new JournalEntry.Sealed(nextReceipt, id));
    advance(id);
    return seq;
  }

  private void advance(ContentId envelopeId) {
    nextReceipt++;
    lastEnvelope = Optional.of(envelopeId);
    tree.append(envelopeId.bytes());
  }

  /** A whole granted serve: authorised, debited {@code uj}, sealed; returns the authorisation. */
  long serve(int i, long uj) {
    long a = authorise(i);
    debit(a, uj);
    sealGranted(a, i, uj);
    return a;
  }

  /** Suspends grants with receipt {@code receiptSeq} of the steward as evidence. */
  long suspend(long receiptSeq, int i) {
    Optional<ContentId> prev =
        receiptSeq == 0 ? Optional.empty() : Optional.of(ContentId.ofBytes(new byte[] {9}));
    Envelope e = seal(receipt(i, 100).chain(receiptSeq, prev), STEWARD);
    return append(new JournalEntry.Suspended(receiptSeq, e));
  }

  /**
   * Suspends grants with a checkpoint of the steward's log as evidence: one of {@code ahead} more
   * receipts than sealed so far, as a steward that served on after a copy of its journal was taken
   * signs it.
   */
  long suspendOnCheckpoint(int ahead) {
    return append(new JournalEntry.SuspendedByCheckpoint(checkpointAhead(STEWARD, ahead)));
  }

  /** A checkpoint {@code key} signs, in the steward's name, of a tree larger than the one here. */
  SignedNote checkpointAhead(SigningKey key, int ahead) {
    MerkleTree longer = new MerkleTree();
    for (long i = 0; i < tree.size() + ahead; i++) {
      longer.append(ContentId.ofBytes(new byte[] {(byte) i, 1}).bytes());
    }
    try {
      return new Checkpoint(STEWARD_ID.value(), longer.size(), longer.root()).sign(key);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  long resume() {
    return append(new JournalEntry.Resumed("journal restored from backup"));
  }

  static Revocation revocation(Instant from) {
    try {
      return Revocation.sign(ISSUER, CHAIN, from);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  long revoke(Instant from) {
    return append(new JournalEntry.Revoked(revocation(from)));
  }

  /** A checkpoint of the receipts sealed so far, signed by the steward. */
  SignedNote checkpointNote() {
    return checkpointNote(tree.size());
  }

  SignedNote checkpointNote(long size) {
    try {
      return new Checkpoint(STEWARD_ID.value(), size, tree.root(size)).sign(STEWARD);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  long checkpoint() {
    return append(new JournalEntry.Checkpoint(checkpointNote(), JournalSeal.by(STEWARD)));
  }

  long nextReceipt() {
    return nextReceipt;
  }

  List<JournalRecord> records() {
    return journal.records();
  }

  List<byte[]> lines() {
    return journal.lines();
  }
}
