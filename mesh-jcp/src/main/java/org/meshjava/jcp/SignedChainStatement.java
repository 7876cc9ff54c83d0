package org.meshjava.jcp;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.identity.DidKey;

/**
 * What a {@link Presentation} and a {@link Revocation} have in common: a statement about a grant
 * chain's leaf, signed with Ed25519 by a {@code did:key}, that carries one field of its own (the
 * presentation's nonce, the revocation's time). Both travel in the same wire form, {@code {"chain":
 * [envelope, …], <signer>: text, <field>: …, "signature": bytes(64)}}, canonical CBOR; only the two
 * keys differ, and a {@link Form} names them. What each statement signs and when it is accepted
 * stays with the statement.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <D> the statement's own field
 */
abstract sealed class SignedChainStatement<D> permits Presentation, Revocation {
  /**
   * How one kind of statement is written: its name in messages, the keys of its signer and of its
   * own field, and how that field is read ({@link SignedChainStatement#fieldCbor()} writes it).
   */
  record Form<D>(String kind, String signerKey, String fieldKey, FieldDecoder<D> read) {}

  /** Reads a statement's own field. */
  @FunctionalInterface
  interface FieldDecoder<D> {
    D read(FieldReader fields, String key) throws MalformedGrantException;
  }

  /** Makes the statement from its decoded parts. */
  @FunctionalInterface
  interface Assembler<D, S> {
    S assemble(GrantChain chain, DidKey signer, D field, byte[] signature);
  }

  private final Form<D> form;
  private final GrantChain chain;
  private final DidKey signer;
  private final D field;
  private final byte[] signature;

  SignedChainStatement(Form<D> form, GrantChain chain, DidKey signer, D field, byte[] signature) {
    this.form = form;
    this.chain = chain;
    this.signer = signer;
    this.field = field;
    this.signature = signature;
  }

  /**
   * Decodes a statement of {@code form} from its canonical encoding. Checks shape only, not
   * signatures.
   *
   * @throws MalformedGrantException if the bytes are not exactly a canonical statement of the form
   */
  static <D, S> S decode(byte[] bytes, Form<D> form, Assembler<D, S> assembler)
      throws MalformedGrantException {
    CborValue v = FieldReader.decode(bytes, form.kind(), DecodedEnvelopes.STATEMENT_LINKS);
    FieldReader r =
        FieldReader.of(
            v,
            form.kind(),
            Set.of("chain", form.signerKey(), form.fieldKey(), "signature"),
            Set.of());
    GrantChain chain = GrantChain.fromCbor(r.value("chain"), r.path("chain"));
    DidKey signer = r.didKey(form.signerKey());
    D field = form.read().read(r, form.fieldKey());
    byte[] signature = r.bytes("signature", SignedGrant.SIGNATURE_LENGTH);
    return assembler.assemble(chain, signer, field, signature);
  }

  /**
   * Checks that this statement's signature, by its signer, covers {@code payload}.
   *
   * <p>The refusal's words are made only when it is refused: a presentation is checked on every
   * granted request, and its words name the request id in hex, which a success never shows.
   *
   * @throws GrantRefusedException {@code bad-signature} with {@code refusal}'s words if it does not
   */
  final void verifySignature(byte[] payload, Supplier<String> refusal)
      throws GrantRefusedException {
    try {
      signer.verificationKey().verify(payload, signature);
    } catch (SignatureException e) {
      throw new GrantRefusedException(DenialLabel.BAD_SIGNATURE, refusal.get());
    }
  }

  /** The statement's own field as it is written. */
  abstract CborValue fieldCbor();

  final DidKey signer() {
    return signer;
  }

  final D field() {
    return field;
  }

  /** Returns the chain; its leaf is the grant the statement is about. */
  public final GrantChain chain() {
    return chain;
  }

  /** Returns the leaf's id, the grant the statement is about. */
  public final GrantId grantId() {
    return chain.leaf().id();
  }

  /** Returns a copy of the signature. */
  public final byte[] signature() {
    return signature.clone();
  }

  /** The wire form. */
  final CborMap toCbor() {
    return CborMap.builder()
        .put("chain", chain.toCbor())
        .put(form.signerKey(), signer.value())
        .put(form.fieldKey(), fieldCbor())
        .put("signature", signature)
        .build();
  }

  /** Returns the canonical encoding. */
  public final byte[] encode() {
    return toCbor().encode();
  }

  /** Returns the canonical encoding as lowercase hex. */
  public final String toHex() {
    return HexFormat.of().formatHex(encode());
  }

  @Override
  public final boolean equals(Object o) {
    return o instanceof SignedChainStatement<?> other
        && getClass() == other.getClass()
        && chain.equals(other.chain)
        && signer.equals(other.signer)
        && field.equals(other.field)
        && Arrays.equals(signature, other.signature);
  }

  @Override
  public final int hashCode() {
    return Objects.hash(chain, signer, field, Arrays.hashCode(signature));
  }
}
