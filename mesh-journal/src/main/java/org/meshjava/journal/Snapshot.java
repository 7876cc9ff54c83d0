package org.meshjava.journal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborLimits;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.internal.RequestCbor;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.LedgerState;
import org.meshjava.jcp.LinkBudget;
import org.meshjava.jcp.PackedSpent;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.jcp.Reservation;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.internal.MerkleTree;

/**
 * A signed snapshot of a journal's replayed state (§2.2; byte layout in SPEC.md §60.8): the {@link
 * SnapshotState} at a journal position, in canonical CBOR, signed with the steward's Ed25519 key. A
 * restart that trusts it replays only the records after its position; it is trusted only when its
 * signature verifies under the restarting steward's own key and the journal's record at its
 * position hashes as it says.
 *
 * <p>Immutable.
 */
public final class Snapshot {
  /**
   * The format version this implementation writes and reads. Format 2 added the transparency tree's
   * levels and signs the body's SHA-256 rather than the body.
   */
  public static final int FORMAT = 2;

  /**
   * The largest snapshot, in bytes, this implementation saves or reads: one is opened from a single
   * {@link ByteBuffer}, whose positions are {@code int}s. At about 96 bytes a receipt (32 for its
   * id, 64 for the tree's levels) that is some 22 million receipts (SPEC.md §60.8, "Size").
   */
  public static final long MAX_BYTES = Integer.MAX_VALUE;

  /** What the signature covers before the body: keeps a snapshot signature from being reused. */
  private static final byte[] CONTEXT =
      "mesh/1 journal snapshot\n".getBytes(StandardCharsets.UTF_8);

  /** Large enough for a body with tens of millions of receipts; depth is fixed by the layout. */
  private static final CborLimits LIMITS = new CborLimits(8, Integer.MAX_VALUE - 64, 1 << 28);

  private final DidKey steward;
  private final SnapshotState state;

  /**
   * Bodies at least this large have their digest taken on another thread while they are decoded: at
   * a million receipts the body is about 150 MB and its SHA-256 a fifth of a restart.
   */
  private static final int PARALLEL_DIGEST_BYTES = 1 << 20;

  /** The receipts' Merkle tree levels ({@link MerkleTree#packedLevels}), or empty. */
  private final CborBytes tree;

  /**
   * The body's encoding, as read-only buffers to be read one after another: the bytes a snapshot
   * was opened from, or, for one signed here, its encoding with the large sections left where they
   * are ({@link CanonicalCbor#encodeSegments}), so that signing and saving a snapshot of a million
   * receipts never builds its 150 MB in memory.
   */
  private final List<ByteBuffer> body;

  private final CborBytes signature;

  private Snapshot(
      DidKey steward,
      SnapshotState state,
      CborBytes tree,
      List<ByteBuffer> body,
      CborBytes signature) {
    this.steward = steward;
    this.state = state;
    this.tree = tree;
    this.body = body;
    this.signature = signature;
  }

  /**
   * Encodes {@code state} and signs it with the steward's {@code key}, with the transparency tree
   * of its receipts built here (two SHA-256 per receipt); a steward passes the levels of the tree
   * it keeps instead ({@link #sign(SigningKey, SnapshotState, byte[])}).
   */
  public static Snapshot sign(SigningKey key, SnapshotState state) {
    ReceiptIds ids = state.receipts();
    MerkleTree tree = new MerkleTree();
    for (long s = ids.first(); s >= 0 && s < ids.first() + ids.size(); s++) {
      tree.append(ids.get(s).orElseThrow().bytes());
    }
    return sign(key, state, tree.packedLevels(ids.size()));
  }

  /**
   * Encodes {@code state} and signs it with the steward's {@code key}, carrying {@code treeLevels}
   * so that a restart restores the transparency tree without rehashing every receipt (§65).
   *
   * @param treeLevels the levels of the Merkle tree of the state's receipts, in order, leaf 0 the
   *     first ({@link MerkleTree#packedLevels} at {@code receipts().size()}); or empty, to carry
   *     none (a restart then rebuilds the tree from the receipt ids)
   * @throws IllegalArgumentException if the levels are not of that size, or their last leaf is not
   *     the last receipt's
   */
  public static Snapshot sign(SigningKey key, SnapshotState state, byte[] treeLevels) {
    return sign(key, state, ByteBuffer.wrap(treeLevels.clone()));
  }

  /**
   * As {@link #sign(SigningKey, SnapshotState, byte[])}, with the levels read in place from {@code
   * treeLevels}' position to its limit and never copied: for a steward that packs its tree's levels
   * for this snapshot alone (tens of megabytes at a million receipts). The caller promises that
   * those bytes never change while the snapshot is held; the buffer's position and limit are left
   * as they were.
   *
   * @throws IllegalArgumentException as {@link #sign(SigningKey, SnapshotState, byte[])}
   */
  public static Snapshot sign(SigningKey key, SnapshotState state, ByteBuffer treeLevels) {
    ByteBuffer levels = treeLevels.slice().asReadOnlyBuffer();
    checkTree(levels, state.receipts());
    DidKey steward = DidKey.of(key.verificationKey());
    CborBytes tree = CborBytes.viewOf(levels);
    List<ByteBuffer> body = CanonicalCbor.encodeSegments(body(steward, state, tree));
    byte[] signature = key.sign(signed(body));
    return new Snapshot(steward, state, tree, body, CborBytes.of(signature));
  }

  /**
   * Decodes a snapshot and checks that it is {@code steward}'s: it names that identity and its
   * signature verifies under that key. Says nothing yet about the journal it covers: {@link
   * #checkAgainst} does. The bytes are copied once (the body); the caller's array is not read
   * again.
   *
   * @throws SnapshotException {@code MALFORMED}, {@code UNSUPPORTED_VERSION}, {@code OTHER_STEWARD}
   *     or {@code BAD_SIGNATURE}
   */
  public static Snapshot open(byte[] bytes, DidKey steward) throws SnapshotException {
    // The decoder's copy of the body is this snapshot's own, and its sections are read in place
    // from that copy rather than copied out once more.
    return open(() -> CanonicalCbor.decode(bytes, LIMITS), steward);
  }

  /**
   * As {@link #open(byte[], DidKey)}, from the bytes between {@code file}'s position and its limit,
   * read where they lie and never copied whole: the sections of the state (spent presentations,
   * receipt ids, the transparency tree's levels; about 150 MB at a million receipts) are views of
   * them, so a restart touches no fresh memory in proportion to its history. For a store's own
   * immutable bytes, such as a snapshot file mapped read-only ({@link SnapshotStore#latestBuffer}):
   * the caller promises that they never change while this snapshot, or a state or tree restored
   * from it, is in use. {@code file}'s position and limit are left as they were.
   *
   * @throws SnapshotException as {@link #open(byte[], DidKey)}
   */
  public static Snapshot open(ByteBuffer file, DidKey steward) throws SnapshotException {
    return open(() -> CanonicalCbor.decodeInPlace(file, LIMITS), steward);
  }

  /** Decodes a snapshot file's CBOR, from an array or in place. */
  @FunctionalInterface
  private interface FileDecoder {
    CborValue decode() throws org.meshjava.core.cbor.CborDecodeException;
  }

  /** Opens the file {@code [body, signature]}: the body's content and its signature. */
  private static Snapshot open(FileDecoder file, DidKey steward) throws SnapshotException {
    Objects.requireNonNull(steward, "steward");
    List<CborValue> outer;
    try {
      outer = Fields.array(file.decode(), 2, "snapshot");
    } catch (org.meshjava.core.cbor.CborDecodeException e) {
      throw malformed("not canonical CBOR: " + e.getMessage());
    }
    CborBytes body = Fields.byteString(outer.get(0), -1, "body");
    CborBytes signature = Fields.byteString(outer.get(1), 64, "signature");
    FutureTask<byte[]> message = new FutureTask<>(() -> signed(List.of(body.asReadOnlyBuffer())));
    if (body.length() >= PARALLEL_DIGEST_BYTES) {
      Thread.ofPlatform().daemon().name("mesh-snapshot-digest").start(message);
    } else {
      message.run();
    }
    CborMap map;
    try {
      if (!(CanonicalCbor.decode(body, LIMITS) instanceof CborMap m)) {
        throw malformed("the body is not a map");
      }
      map = m;
    } catch (org.meshjava.core.cbor.CborDecodeException e) {
      throw malformed("the body is not canonical CBOR: " + e.getMessage());
    }
    Fields f = new Fields(map);
    checkFormat(f.uint("format"));
    checkSteward(f.text("steward"), steward);
    // The state is decoded while the digest is taken, but neither it nor a refusal of its content
    // leaves this method before the signature has verified: an altered snapshot is BAD_SIGNATURE
    // whatever its content, as when the signature was checked first.
    Content content = null;
    SnapshotException invalid = null;
    try {
      content = Content.of(f);
    } catch (SnapshotException e) {
      invalid = e;
    }
    try {
      steward.verificationKey().verify(digested(message), signature.bytes());
    } catch (SignatureException e) {
      throw new SnapshotException(
          SnapshotException.Reason.BAD_SIGNATURE,
          "its signature does not verify under " + steward.value() + "; it was altered",
          e);
    }
    if (content == null) {
      throw Objects.requireNonNull(invalid);
    }
    return new Snapshot(
        steward, content.state(), content.tree(), List.of(body.asReadOnlyBuffer()), signature);
  }

  /** A body's decoded content: its state and its tree's levels. */
  private record Content(SnapshotState state, CborBytes tree) {
    static Content of(Fields f) throws SnapshotException {
      try {
        SnapshotState state = f.state();
        CborBytes tree = Fields.byteString(f.get("tree"), -1, "tree");
        // What sign refuses to write, open refuses to read: a restart would otherwise restore a
        // transparency tree that is not its receipts' and sign checkpoints over the wrong root.
        checkTree(tree.asReadOnlyBuffer(), state.receipts());
        return new Content(state, tree);
      } catch (RuntimeException e) {
        throw malformed("invalid content: " + e.getMessage());
      }
    }
  }

  /**
   * Checks that {@code levels}, when not empty, are the size of the packed levels of {@code ids}'
   * tree and end in the last receipt's leaf: the check {@link #sign} and {@link #open} share. The
   * inner levels are not rehashed (carrying them spares a restart exactly that).
   *
   * @throws IllegalArgumentException naming what does not fit
   */
  private static void checkTree(ByteBuffer levels, ReceiptIds ids) {
    if (levels.remaining() == 0) {
      return;
    }
    long n = ids.size();
    if (levels.remaining() != MerkleTree.packedLength(n)) {
      throw new IllegalArgumentException(
          "tree is " + levels.remaining() + " bytes, not the levels of " + n + " receipts");
    }
    int last = levels.position() + Math.toIntExact((n - 1) * ContentId.LENGTH);
    byte[] expected = InclusionProof.leafHash(ids.get(ids.first() + n - 1).orElseThrow()).bytes();
    if (!levels.slice(last, ContentId.LENGTH).equals(ByteBuffer.wrap(expected))) {
      throw new IllegalArgumentException("the tree is not the tree of the state's receipts");
    }
  }

  /** The message a snapshot's signature covers, once its digest is taken. */
  private static byte[] digested(FutureTask<byte[]> message) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return message.get();
        } catch (InterruptedException e) {
          // The digest is a fraction of a second of work; finish it rather than leave a start
          // half-checked, and keep the interrupt for the caller.
          interrupted = true;
        }
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("the snapshot digest failed", e.getCause());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Decodes a snapshot and checks it under the key of the steward it names, for tools that do not
   * know the steward beforehand ({@code mesh journal verify}); a steward opens its own with {@link
   * #open(byte[], DidKey)}.
   *
   * @throws SnapshotException as {@link #open(byte[], DidKey)}
   */
  public static Snapshot openAsNamed(byte[] bytes) throws SnapshotException {
    return open(bytes, named(() -> CanonicalCbor.decode(bytes, LIMITS)));
  }

  /**
   * As {@link #openAsNamed(byte[])}, from the bytes between {@code file}'s position and its limit,
   * read in place as {@link #open(ByteBuffer, DidKey)} reads them (a snapshot file mapped
   * read-only, which {@code mesh journal verify} and {@code archive} check without copying it).
   *
   * @throws SnapshotException as {@link #open(byte[], DidKey)}
   */
  public static Snapshot openAsNamed(ByteBuffer file) throws SnapshotException {
    return open(file, named(() -> CanonicalCbor.decodeInPlace(file, LIMITS)));
  }

  /** The steward a snapshot file names in its body, not yet checked against its signature. */
  private static DidKey named(FileDecoder file) throws SnapshotException {
    List<CborValue> outer;
    CborValue body;
    try {
      outer = Fields.array(file.decode(), 2, "snapshot");
      body = CanonicalCbor.decode(Fields.byteString(outer.get(0), -1, "body"), LIMITS);
    } catch (org.meshjava.core.cbor.CborDecodeException e) {
      throw malformed("not canonical CBOR: " + e.getMessage());
    }
    if (!(body instanceof CborMap m)) {
      throw malformed("the body is not a map");
    }
    String named = new Fields(m).text("steward");
    try {
      return DidKey.parse(named);
    } catch (org.meshjava.core.identity.DidKeyException e) {
      throw malformed("steward " + named + " is not a did:key: " + e.getMessage());
    }
  }

  /**
   * The canonical encoding of {@code state} as {@code steward}'s snapshot body, without a locator
   * and unsigned: two states are the same exactly when these bytes are (for comparing a snapshot
   * with a replay).
   */
  public static byte[] canonicalBody(DidKey steward, SnapshotState state) {
    JournalPosition p = state.position();
    SnapshotState plain =
        new SnapshotState(
            p.withoutLocator(),
            state.ledger(),
            state.revocations(),
            state.suspension(),
            state.lastSealed(),
            state.receipts(),
            state.open(),
            state.settled(),
            state.checkpoint(),
            state.chains(),
            state.authorisations(),
            state.revocationsReplayed());
    return body(steward, plain, CborBytes.of(new byte[0])).encode();
  }

  /**
   * Checks that {@code journal} holds the history this snapshot covers: it is no longer than the
   * journal, and the journal's record at its last covered place hashes as it says. The second check
   * happens as the tail is read ({@link Journal#read} refuses a position whose hash differs), so
   * this checks the length and, at the journal's very end, the hash.
   *
   * @throws SnapshotException {@code AHEAD_OF_JOURNAL} or {@code NOT_IN_JOURNAL}
   */
  public void checkAgainst(JournalPosition journalEnd) throws SnapshotException {
    checkAgainst(state.position(), journalEnd);
  }

  /** Refuses a snapshot format other than {@link #FORMAT}. */
  static void checkFormat(long format) throws SnapshotException {
    if (format != FORMAT) {
      throw new SnapshotException(
          SnapshotException.Reason.UNSUPPORTED_VERSION,
          "format " + format + "; this implementation reads format " + FORMAT,
          null);
    }
  }

  /** Refuses a snapshot that names a steward ({@code named}) other than {@code steward}. */
  static void checkSteward(String named, DidKey steward) throws SnapshotException {
    if (!named.equals(steward.value())) {
      throw new SnapshotException(
          SnapshotException.Reason.OTHER_STEWARD,
          "it is steward " + named + "'s, not " + steward.value() + "'s",
          null);
    }
  }

  /** {@link #checkAgainst(JournalPosition)} for a snapshot that covers {@code at}. */
  static void checkAgainst(JournalPosition at, JournalPosition journalEnd)
      throws SnapshotException {
    if (at.count() > journalEnd.count()) {
      throw new SnapshotException(
          SnapshotException.Reason.AHEAD_OF_JOURNAL,
          "it covers "
              + at.count()
              + " records but the journal holds "
              + journalEnd.count()
              + " (a journal restored from an older copy, or another journal; or its last records"
              + " were cut, a final line without a newline among them, which the steward drops)",
          null);
    }
    if (at.count() == journalEnd.count() && !at.lastHash().equals(journalEnd.lastHash())) {
      throw notInJournal(at.count());
    }
  }

  /** The refusal for a snapshot whose position's hash the journal does not have. */
  static SnapshotException notInJournal(long count) {
    return new SnapshotException(
        SnapshotException.Reason.NOT_IN_JOURNAL,
        "the journal's record "
            + (count - 1)
            + " does not hash as the snapshot says: it covers another history",
        null);
  }

  /**
   * A gate for the steward holding the snapshot's ledger, with {@code revocations} (the operator's)
   * widened by the snapshot's.
   */
  public Gate gate(Revocations revocations) {
    return gate(steward, state, revocations);
  }

  /**
   * A gate for {@code steward} holding {@code state}'s ledger, with {@code revocations} widened by
   * the state's.
   */
  public static Gate gate(DidKey steward, SnapshotState state, Revocations revocations) {
    state.revocations().forEach(revocations::revoke);
    return Gate.create(steward, SpendLedger.restore(state.ledger()), revocations);
  }

  /**
   * What this snapshot says about itself in its header ({@link SnapshotHeader}): the format, the
   * steward, the position covered and the counts replayed, as {@link
   * FileSnapshotStore#latestHeader} reads them from its file without the body.
   */
  public SnapshotHeader header() {
    return new SnapshotHeader(
        FORMAT, steward, state.position(), state.authorisations(), state.revocationsReplayed());
  }

  /** The steward whose snapshot it is. */
  public DidKey steward() {
    return steward;
  }

  /** The state it carries. */
  public SnapshotState state() {
    return state;
  }

  /** The journal position it covers. */
  public JournalPosition position() {
    return state.position();
  }

  /**
   * The transparency tree of the snapshot's receipts, restored from the levels it carries without
   * rehashing or copying them (a new tree on each call; appends to it are kept apart); empty when
   * it carries none or holds no receipt. For the steward's restart: the tree is the transparency
   * log's internal storage, exported only to the modules that keep a log (hence "exports").
   */
  @SuppressWarnings("exports")
  public Optional<MerkleTree> tree() {
    if (tree.length() == 0) {
      return Optional.empty();
    }
    return Optional.of(MerkleTree.overLevels(state.receipts().size(), tree.asReadOnlyBuffer()));
  }

  /**
   * Its encoding: what a snapshot store keeps. For an opened snapshot, the bytes it was opened
   * from: they were canonical CBOR, whose encoding is unique, so encoding their two parts again
   * gives them back. A store that writes to a file or a stream writes {@link #fileSegments()}
   * instead, one after another, rather than building this array.
   */
  public byte[] encoded() {
    List<ByteBuffer> parts = fileSegments();
    ByteBuffer out =
        ByteBuffer.allocate(Math.toIntExact(parts.stream().mapToLong(ByteBuffer::remaining).sum()));
    parts.forEach(out::put);
    return out.array();
  }

  /**
   * The length of {@link #encoded()}, in bytes, without building it: lets a store refuse a snapshot
   * larger than it keeps ({@link SnapshotStore#maxBytes()}) before it copies any of it.
   */
  public long encodedLength() {
    long length = 0;
    for (ByteBuffer part : fileSegments()) {
      length += part.remaining();
    }
    return length;
  }

  /**
   * {@link #encoded()} as read-only buffers whose concatenation, in order, is it: the head of the
   * array {@code [body, signature]} and of the body's byte string, the body's own buffers (which
   * share the state's large sections, or the bytes the snapshot was opened from), then the
   * signature. Fresh buffers on each call.
   */
  List<ByteBuffer> fileSegments() {
    long length = 0;
    for (ByteBuffer b : body) {
      length += b.remaining();
    }
    byte[] bodyHead = CanonicalCbor.byteStringHead(length);
    byte[] head = new byte[1 + bodyHead.length];
    head[0] = (byte) 0x82; // an array of two items
    System.arraycopy(bodyHead, 0, head, 1, bodyHead.length);
    List<ByteBuffer> out = new ArrayList<>(body.size() + 2);
    out.add(ByteBuffer.wrap(head));
    for (ByteBuffer b : body) {
      out.add(b.duplicate());
    }
    out.add(ByteBuffer.wrap(signature.encode()));
    return out;
  }

  /**
   * What the signature covers: the context and the body's SHA-256. Not the body itself: Ed25519
   * hashes its message with SHA-512 in BouncyCastle's Java code, three times slower here than the
   * JDK's SHA-256 on the processor's SHA instructions, and a body is tens of megabytes per million
   * receipts; the digest binds the body as firmly.
   */
  private static byte[] signed(List<ByteBuffer> body) {
    byte[] digest;
    try {
      java.security.MessageDigest sha256 = java.security.MessageDigest.getInstance("SHA-256");
      for (ByteBuffer b : body) {
        sha256.update(b.duplicate());
      }
      digest = sha256.digest();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
    byte[] out = Arrays.copyOf(CONTEXT, CONTEXT.length + digest.length);
    System.arraycopy(digest, 0, out, CONTEXT.length, digest.length);
    return out;
  }

  // ---- encoding -------------------------------------------------------------------------------

  @SuppressWarnings("JavaInstantGetSecondsGetNano") // both halves of the instant are written
  private static CborMap body(DidKey steward, SnapshotState s, CborBytes tree) {
    JournalPosition p = s.position();
    LedgerState l = s.ledger();
    List<CborValue> accounts = new ArrayList<>();
    for (LedgerState.Account a : l.accounts()) {
      List<CborValue> items =
          new ArrayList<>(
              List.of(
                  id(a.link()),
                  CborInt.of(a.debitedUj()),
                  CborInt.of(a.reservedUj()),
                  t(a.expiry())));
      // A fifth item only where debits went past 2^63 − 1 (SPEC 30 §8), so every other account
      // keeps the four items an older build reads.
      if (a.debitPastRange()) {
        items.add(CborInt.of(1));
      }
      accounts.add(new CborArray(items));
    }
    // Packed: a steward's spent nonces are most of its state (one per unexpired serve). Their
    // bytes never change, so the body refers to them rather than copying 60 bytes a serve.
    CborBytes spent = CborBytes.viewOf(PackedSpent.of(l.spent()).asReadOnlyBuffer());
    List<CborValue> open = new ArrayList<>();
    for (Reservation r : l.open()) {
      List<CborValue> links = new ArrayList<>();
      for (LinkBudget b : r.links()) {
        links.add(CborArray.of(id(b.link()), CborInt.of(b.budgetUj()), t(b.expiry())));
      }
      open.add(
          CborArray.of(
              CborInt.of(r.serial()),
              id(r.leaf()),
              CborBytes.of(r.nonce().bytes()),
              CborInt.of(r.amountUj()),
              new CborArray(links)));
    }
    List<CborValue> revocations = new ArrayList<>();
    s.revocations().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> revocations.add(CborArray.of(id(e.getKey()), t(e.getValue()))));
    List<CborValue> authorisations = new ArrayList<>();
    for (SnapshotState.OpenAuthorisation o : s.open()) {
      JournalEntry.Authorised a = o.entry();
      authorisations.add(
          CborArray.of(
              CborInt.of(o.seq()),
              CborInt.of(o.reservation()),
              CborBytes.of(a.presentation().encode()),
              CborBytes.of(a.identified().encoded()),
              CborBytes.of(a.model().map(ContentId::bytes).orElse(new byte[0])),
              CborText.of(a.backend()),
              CborInt.of(a.decidedAt().toEpochMilli())));
    }
    List<CborValue> settled = new ArrayList<>();
    for (SnapshotState.SettledDebit d : s.settled()) {
      Energy e = d.debit().energy();
      settled.add(
          CborArray.of(
              CborInt.of(d.authorised()),
              CborInt.of(d.debitSeq()),
              CborBytes.of(d.requestId().bytes()),
              id(d.grantId()),
              CborInt.of(e.estimatedUj()),
              CborInt.of(e.measuredUj().orElse(-1)),
              CborText.of(e.provenance().name()),
              CborInt.of(d.debit().debitedUj()),
              CborText.of(d.debit().breach().orElse(""))));
    }
    List<CborValue> chains = new ArrayList<>();
    for (GrantChain c : s.chains()) {
      chains.add(CborBytes.of(c.encode()));
    }
    return CborMap.builder()
        .put("format", FORMAT)
        .put("steward", steward.value())
        .put(
            "position",
            CborArray.of(
                CborInt.of(p.count()),
                CborBytes.of(p.lastHash().map(ContentId::bytes).orElse(new byte[0])),
                CborInt.of(p.locator())))
        .put(
            "ledger",
            CborArray.of(
                t(l.horizon()),
                CborInt.of(l.nextSerial()),
                new CborArray(accounts),
                spent,
                new CborArray(open)))
        .put("revocations", new CborArray(revocations))
        .put("suspension", s.suspension().map(Snapshot::suspensionItems).orElse(CborArray.of()))
        .put(
            "head",
            s.lastSealed()
                .map(
                    x ->
                        CborArray.of(
                            CborInt.of(x.sequence()), CborBytes.of(x.envelopeId().bytes())))
                .orElse(CborArray.of()))
        .put(
            "receipts",
            CborArray.of(
                CborInt.of(s.receipts().first()),
                CborBytes.viewOf(ByteBuffer.wrap(s.receipts().packed()))))
        .put("open", new CborArray(authorisations))
        .put("settled", new CborArray(settled))
        .put("checkpoint", s.checkpoint().map(SignedNote::encoded).orElse(""))
        .put("tree", tree)
        .put("chains", new CborArray(chains))
        .put(
            "counts",
            CborArray.of(CborInt.of(s.authorisations()), CborInt.of(s.revocationsReplayed())))
        .build();
  }

  /** A suspension's items (SPEC.md §60.8, {@code "suspension"}): see {@code Fields.suspension}. */
  private static CborArray suspensionItems(Suspension x) {
    return switch (x.evidence()) {
      case Suspension.Evidence.ShownReceipt r ->
          CborArray.of(
              CborInt.of(x.record()),
              CborInt.of(r.sequence()),
              CborBytes.of(r.envelopeId().bytes()));
      case Suspension.Evidence.ShownCheckpoint c ->
          CborArray.of(CborInt.of(x.record()), CborText.of(c.checkpoint().encoded()));
    };
  }

  private static CborValue id(GrantId g) {
    return CborBytes.of(g.contentId().bytes());
  }

  /** An instant as [seconds, nanoseconds]: covers {@link Instant#MIN} and {@link Instant#MAX}. */
  private static CborValue t(Instant i) {
    return CborArray.of(CborInt.of(i.getEpochSecond()), CborInt.of(i.getNano()));
  }

  private static SnapshotException malformed(String detail) {
    return new SnapshotException(SnapshotException.Reason.MALFORMED, detail, null);
  }

  // ---- decoding -------------------------------------------------------------------------------

  /** Strict reads of the body's fields: exactly the keys the format has, each of its type. */
  private static final class Fields {
    private static final java.util.Set<String> KEYS =
        java.util.Set.of(
            "format",
            "steward",
            "position",
            "ledger",
            "revocations",
            "suspension",
            "head",
            "receipts",
            "open",
            "settled",
            "checkpoint",
            "tree",
            "chains",
            "counts");

    private final CborMap map;

    Fields(CborMap map) throws SnapshotException {
      this.map = map;
      for (CborMap.Entry e : map.entries()) {
        if (!(e.key() instanceof CborText k) || !KEYS.contains(k.value())) {
          // Named as it reads in the file, not as Java prints the decoded value.
          throw malformed(
              e.key() instanceof CborText t
                  ? "unknown key \"" + t.value() + "\""
                  : "a key that is not text");
        }
      }
      if (map.size() != KEYS.size()) {
        throw malformed("expected the keys " + KEYS);
      }
    }

    CborValue get(String key) throws SnapshotException {
      Optional<CborValue> v = map.get(key);
      if (v.isEmpty()) {
        throw malformed("missing " + key);
      }
      return v.get();
    }

    long uint(String key) throws SnapshotException {
      return uint(get(key), key);
    }

    String text(String key) throws SnapshotException {
      return text(get(key), key);
    }

    static long uint(CborValue v, String what) throws SnapshotException {
      long n = integer(v, what);
      if (n < 0) {
        throw malformed(what + " is negative");
      }
      return n;
    }

    static long integer(CborValue v, String what) throws SnapshotException {
      if (!(v instanceof CborInt i)) {
        throw malformed(what + " is not an integer");
      }
      return i.value();
    }

    static String text(CborValue v, String what) throws SnapshotException {
      if (!(v instanceof CborText t)) {
        throw malformed(what + " is not text");
      }
      return t.value();
    }

    static byte[] bytes(CborValue v, int length, String what) throws SnapshotException {
      return byteString(v, length, what).bytes();
    }

    /** As {@link #bytes}, without copying: for the sections of megabytes. */
    static CborBytes byteString(CborValue v, int length, String what) throws SnapshotException {
      if (!(v instanceof CborBytes b)) {
        throw malformed(what + " is not a byte string");
      }
      if (length >= 0 && b.length() != length) {
        throw malformed(what + " is " + b.length() + " bytes, not " + length);
      }
      return b;
    }

    static List<CborValue> array(CborValue v, int length, String what) throws SnapshotException {
      if (!(v instanceof CborArray a)) {
        throw malformed(what + " is not an array");
      }
      if (length >= 0 && a.items().size() != length) {
        throw malformed(what + " has " + a.items().size() + " items, not " + length);
      }
      return a.items();
    }

    static Instant instant(CborValue v, String what) throws SnapshotException {
      List<CborValue> a = array(v, 2, what);
      long nanos = uint(a.get(1), what);
      if (nanos > 999_999_999L) {
        throw malformed(what + " has " + nanos + " nanoseconds");
      }
      try {
        return Instant.ofEpochSecond(integer(a.get(0), what), nanos);
      } catch (java.time.DateTimeException e) {
        throw malformed(what + " is out of range");
      }
    }

    static GrantId grant(CborValue v, String what) throws SnapshotException {
      return new GrantId(ContentId.fromDigest(bytes(v, 32, what)));
    }

    /** Decodes the items of one array. */
    @FunctionalInterface
    private interface ItemsDecoder<T> {
      T decode(List<CborValue> items) throws SnapshotException;
    }

    /**
     * The optional part at {@code key}: empty when it is absent (an empty array), else its {@code
     * length} items, decoded.
     */
    <T> Optional<T> optional(String key, int length, ItemsDecoder<T> decoder)
        throws SnapshotException {
      List<CborValue> a = array(get(key), -1, key);
      if (a.isEmpty()) {
        return Optional.empty();
      }
      if (a.size() != length) {
        throw malformed(key + " has " + a.size() + " items, not 0 or " + length);
      }
      return Optional.of(decoder.decode(a));
    }

    /**
     * The suspension in force, or empty: its record with the receipt shown and that receipt's
     * envelope id (three items), or with the checkpoint shown, as its signed note's text (two).
     */
    Optional<Suspension> suspension() throws SnapshotException {
      List<CborValue> a = array(get("suspension"), -1, "suspension");
      return switch (a.size()) {
        case 0 -> Optional.empty();
        case 2 -> {
          try {
            yield Optional.of(
                new Suspension(
                    uint(a.get(0), "suspension record"),
                    new Suspension.Evidence.ShownCheckpoint(
                        SignedNote.parse(text(a.get(1), "suspension checkpoint")))));
          } catch (org.meshjava.receipt.tlog.LogException e) {
            throw malformed("suspension checkpoint: " + e.getMessage());
          }
        }
        case 3 ->
            Optional.of(
                new Suspension(
                    uint(a.get(0), "suspension record"),
                    uint(a.get(1), "suspension receipt"),
                    ContentId.fromDigest(bytes(a.get(2), 32, "suspension envelope"))));
        default -> throw malformed("suspension has " + a.size() + " items, not 0, 2 or 3");
      };
    }

    /** The chain head's items: the last receipt's sequence and envelope id. */
    static RecordedReceipt head(List<CborValue> a) throws SnapshotException {
      return new RecordedReceipt(
          uint(a.get(0), "head sequence"),
          ContentId.fromDigest(bytes(a.get(1), 32, "head envelope")));
    }

    static Optional<ContentId> optionalId(CborValue v, String what) throws SnapshotException {
      byte[] b = bytes(v, -1, what);
      if (b.length == 0) {
        return Optional.empty();
      }
      if (b.length != 32) {
        throw malformed(what + " is " + b.length + " bytes, not 32 or 0");
      }
      return Optional.of(ContentId.fromDigest(b));
    }

    SnapshotState state() throws SnapshotException {
      List<CborValue> p = array(get("position"), 3, "position");
      long count = uint(p.get(0), "position count");
      Optional<ContentId> hash = optionalId(p.get(1), "position hash");
      long locator = integer(p.get(2), "position locator");
      JournalPosition position = new JournalPosition(count, hash, Math.max(-1, locator));

      List<CborValue> l = array(get("ledger"), 5, "ledger");
      List<LedgerState.Account> accounts = new ArrayList<>();
      for (CborValue v : array(l.get(2), -1, "accounts")) {
        List<CborValue> a = array(v, -1, "account");
        if (a.size() != 4 && a.size() != 5) {
          throw malformed("account has " + a.size() + " items, not 4 or 5");
        }
        boolean pastRange = a.size() == 5;
        long debited = uint(a.get(1), "debited");
        if (pastRange && (uint(a.get(4), "debit past range") != 1 || debited != Long.MAX_VALUE)) {
          throw malformed("account's fifth item is not 1 after a debit stopped at 2^63 - 1");
        }
        accounts.add(
            new LedgerState.Account(
                grant(a.get(0), "account link"),
                debited,
                uint(a.get(2), "reserved"),
                instant(a.get(3), "expiry"),
                pastRange));
      }
      // Kept packed and read in place: a ledger restored from them looks pairs up in these bytes
      // (PackedSpent), which are the snapshot's own and never change.
      PackedSpent spent;
      try {
        spent = PackedSpent.over(byteString(l.get(3), -1, "spent").asReadOnlyBuffer());
      } catch (IllegalArgumentException e) {
        throw malformed("spent: " + e.getMessage());
      }
      List<Reservation> open = new ArrayList<>();
      for (CborValue v : array(l.get(4), -1, "reservations")) {
        List<CborValue> a = array(v, 5, "reservation");
        List<LinkBudget> links = new ArrayList<>();
        for (CborValue lv : array(a.get(4), -1, "reservation links")) {
          List<CborValue> b = array(lv, 3, "reservation link");
          links.add(
              new LinkBudget(
                  grant(b.get(0), "link"), uint(b.get(1), "budget"), instant(b.get(2), "expiry")));
        }
        open.add(
            new Reservation(
                uint(a.get(0), "serial"),
                grant(a.get(1), "reservation leaf"),
                PresentationNonce.of(bytes(a.get(2), PresentationNonce.LENGTH, "nonce")),
                links,
                uint(a.get(3), "amount")));
      }
      LedgerState ledger =
          new LedgerState(
              instant(l.get(0), "horizon"), uint(l.get(1), "next serial"), accounts, spent, open);

      Map<GrantId, Instant> revocations = new java.util.HashMap<>();
      for (CborValue v : array(get("revocations"), -1, "revocations")) {
        List<CborValue> a = array(v, 2, "revocation");
        revocations.put(grant(a.get(0), "revoked grant"), instant(a.get(1), "revoked from"));
      }
      Optional<Suspension> suspension = suspension();
      Optional<RecordedReceipt> lastSealed = optional("head", 2, Fields::head);
      List<CborValue> r = array(get("receipts"), 2, "receipts");
      ReceiptIds receipts =
          ReceiptIds.over(
              integer(r.get(0), "first receipt"),
              byteString(r.get(1), -1, "receipt ids").asReadOnlyBuffer());

      List<SnapshotState.OpenAuthorisation> authorisations = new ArrayList<>();
      for (CborValue v : array(get("open"), -1, "open")) {
        List<CborValue> a = array(v, 7, "open authorisation");
        Presentation presentation;
        ServeRequest request;
        try {
          presentation = Presentation.decode(bytes(a.get(2), -1, "presentation"));
          request = RequestCbor.decode(CanonicalCbor.decode(bytes(a.get(3), -1, "request")));
        } catch (org.meshjava.jcp.MalformedGrantException
            | org.meshjava.core.cbor.CborDecodeException e) {
          throw malformed("open authorisation: " + e.getMessage());
        }
        authorisations.add(
            new SnapshotState.OpenAuthorisation(
                uint(a.get(0), "authorised record"),
                new JournalEntry.Authorised(
                    presentation,
                    request,
                    optionalId(a.get(4), "model"),
                    text(a.get(5), "backend"),
                    Instant.ofEpochMilli(uint(a.get(6), "decided at"))),
                uint(a.get(1), "reservation serial")));
      }
      List<SnapshotState.SettledDebit> settled = new ArrayList<>();
      for (CborValue v : array(get("settled"), -1, "settled")) {
        List<CborValue> a = array(v, 9, "settled debit");
        long measured = integer(a.get(5), "measured");
        String breach = text(a.get(8), "breach");
        settled.add(
            new SnapshotState.SettledDebit(
                uint(a.get(0), "authorised record"),
                uint(a.get(1), "debit record"),
                ContentId.fromDigest(bytes(a.get(2), 32, "request id")),
                grant(a.get(3), "grant id"),
                new JournalEntry.Debited(
                    uint(a.get(0), "authorised record"),
                    new Energy(
                        measured < 0 ? OptionalLong.empty() : OptionalLong.of(measured),
                        uint(a.get(4), "estimated"),
                        Provenance.fromWire(text(a.get(6), "provenance"))),
                    uint(a.get(7), "debited"),
                    breach.isEmpty() ? Optional.empty() : Optional.of(breach))));
      }
      String note = text("checkpoint");
      Optional<SignedNote> checkpoint = Optional.empty();
      if (!note.isEmpty()) {
        try {
          checkpoint = Optional.of(SignedNote.parse(note));
        } catch (org.meshjava.receipt.tlog.LogException e) {
          throw malformed("checkpoint: " + e.getMessage());
        }
      }
      List<GrantChain> chains = new ArrayList<>();
      for (CborValue v : array(get("chains"), -1, "chains")) {
        try {
          chains.add(GrantChain.decode(bytes(v, -1, "chain")));
        } catch (org.meshjava.jcp.MalformedGrantException e) {
          throw malformed("chain: " + e.getMessage());
        }
      }
      List<CborValue> counts = array(get("counts"), 2, "counts");
      return new SnapshotState(
          position,
          ledger,
          revocations,
          suspension,
          lastSealed,
          receipts,
          authorisations,
          settled,
          checkpoint,
          chains,
          uint(counts.get(0), "authorisations"),
          uint(counts.get(1), "revocations"));
    }
  }
}
