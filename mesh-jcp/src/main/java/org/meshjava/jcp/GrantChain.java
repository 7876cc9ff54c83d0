package org.meshjava.jcp;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborValue;

/**
 * A chain of signed grants, root first and leaf last (JCP §4.2 as mesh §2.1 cites it). A direct
 * grant is a chain of one.
 *
 * <p>Construction only bounds the length; it does not check the links, because a chain arrives from
 * outside and must be refusable with a label. {@link #verify()} checks signatures, linkage,
 * attenuation and caveat kinds; the {@link Gate} does that and everything that depends on time,
 * revocation and spend.
 *
 * <p>Wire form: a CBOR array of signed-grant envelopes, root first. Immutable and thread-safe.
 *
 * @param links the grants, root first, 1 to {@link #MAX_LINKS}
 */
public record GrantChain(List<SignedGrant> links) {
  /** The longest chain accepted; bounds the work one presentation can cost the gate. */
  public static final int MAX_LINKS = 16;

  /** Validates and copies the links. */
  public GrantChain {
    links = List.copyOf(links);
    if (links.isEmpty() || links.size() > MAX_LINKS) {
      throw new IllegalArgumentException(
          "a chain has 1 to " + MAX_LINKS + " links, got " + links.size());
    }
  }

  /** Returns a chain of one root grant. */
  public static GrantChain of(SignedGrant root) {
    return new GrantChain(List.of(root));
  }

  /** Returns this chain with {@code child} appended as its new leaf (no checks; see verify). */
  public GrantChain extend(SignedGrant child) {
    List<SignedGrant> l = new ArrayList<>(links);
    l.add(Objects.requireNonNull(child, "child"));
    return new GrantChain(l);
  }

  /** Returns the root, link 0. */
  public SignedGrant root() {
    return links.getFirst();
  }

  /** Returns the leaf, the last link. */
  public SignedGrant leaf() {
    return links.getLast();
  }

  /** Returns each link's id, root first. */
  public List<GrantId> ids() {
    return links.stream().map(SignedGrant::id).toList();
  }

  /**
   * Returns the weights a serve under this chain may run, when any link carries {@link ModelIn}:
   * the intersection of every such set. Empty when the chain does not constrain the model. A router
   * uses this to rule out backends before deciding (§2 phase 1).
   */
  public Optional<Set<ContentId>> permittedModels() {
    Set<ContentId> permitted = null;
    for (SignedGrant g : links) {
      for (Caveat c : g.grant().caveats()) {
        if (c instanceof ModelIn m) {
          if (permitted == null) {
            permitted = new TreeSet<>(m.weights());
          } else {
            permitted.retainAll(m.weights());
          }
        }
      }
    }
    return Optional.ofNullable(permitted).map(Set::copyOf);
  }

  /**
   * Whether a backend running {@code model} (empty when it names no weights) is admissible under
   * every {@link ModelIn} caveat of the chain.
   */
  public boolean admitsModel(Optional<ContentId> model) {
    return permittedModels().map(p -> model.isPresent() && p.contains(model.get())).orElse(true);
  }

  /**
   * Checks everything about the chain that does not depend on time, revocation or spend: every
   * link's signature, then linkage (root has no parent; each later link is issued by the previous
   * subject and names the previous id), attenuation, and that every caveat is of a known kind.
   *
   * @throws GrantRefusedException labelled {@code bad-signature}, {@code broken-chain}, {@code
   *     not-attenuated} or {@code unknown-caveat}, naming the first link at fault
   */
  public void verify() throws GrantRefusedException {
    for (int i = 0; i < links.size(); i++) {
      links.get(i).verifySignature(i);
    }
    for (int i = 0; i < links.size(); i++) {
      Grant g = links.get(i).grant();
      if (i == 0) {
        if (g.parent().isPresent()) {
          throw new GrantRefusedException(
              DenialLabel.BROKEN_CHAIN, "the root names a parent " + g.parent().get(), i);
        }
        continue;
      }
      SignedGrant previous = links.get(i - 1);
      if (!g.issuer().equals(previous.grant().subject())) {
        throw new GrantRefusedException(
            DenialLabel.BROKEN_CHAIN,
            "issuer "
                + g.issuer()
                + " is not the previous link's subject "
                + previous.grant().subject(),
            i);
      }
      if (!g.parent().equals(Optional.of(previous.id()))) {
        throw new GrantRefusedException(
            DenialLabel.BROKEN_CHAIN,
            "parent "
                + g.parent().map(GrantId::hex).orElse("(none)")
                + " is not the previous link "
                + previous.id(),
            i);
      }
      Optional<String> widened = Attenuation.violation(previous.grant(), g);
      if (widened.isPresent()) {
        throw new GrantRefusedException(DenialLabel.NOT_ATTENUATED, widened.get(), i);
      }
    }
    for (int i = 0; i < links.size(); i++) {
      for (Caveat c : links.get(i).grant().caveats()) {
        if (c instanceof UnknownCaveat u) {
          throw new GrantRefusedException(
              DenialLabel.UNKNOWN_CAVEAT, "caveat kind '" + u.kind() + "' is not understood", i);
        }
      }
    }
  }

  /** The canonical CBOR array of envelopes. */
  CborArray toCbor() {
    return new CborArray(links.stream().<CborValue>map(SignedGrant::toCbor).toList());
  }

  /**
   * Returns the canonical encoding: the array's head, then each link's envelope as it was signed
   * and hashed for its id, copied rather than rebuilt from the grant (the journal takes a chain's
   * id on every granted serve).
   */
  public byte[] encode() {
    int size = 1;
    for (SignedGrant link : links) {
      size += link.encodedLength();
    }
    byte[] out = new byte[size];
    // A definite-length array of fewer than 24 items has a one-byte head (RFC 8949 §3: major type
    // 4 in the top three bits, the count in the low five); MAX_LINKS is 16.
    out[0] = (byte) (0x80 | links.size());
    int at = 1;
    for (SignedGrant link : links) {
      at = link.encodeInto(out, at);
    }
    return out;
  }

  /** Returns the canonical encoding as lowercase hex. */
  public String toHex() {
    return HexFormat.of().formatHex(encode());
  }

  /**
   * Decodes a chain from its canonical encoding.
   *
   * @throws MalformedGrantException if it is not a canonical array of 1 to 16 envelopes
   */
  public static GrantChain decode(byte[] bytes) throws MalformedGrantException {
    return fromCbor(FieldReader.decode(bytes, "chain"), "chain");
  }

  /**
   * Decodes a chain from lowercase hex.
   *
   * @throws MalformedGrantException if the text is not hex of a canonical chain
   */
  public static GrantChain fromHex(String hex) throws MalformedGrantException {
    return decode(FieldReader.unhex(hex, "chain"));
  }

  static GrantChain fromCbor(CborValue value, String path) throws MalformedGrantException {
    if (!(value instanceof CborArray(List<CborValue> items))) {
      throw new MalformedGrantException(Malformation.SHAPE, path, "expected an array of grants");
    }
    if (items.isEmpty() || items.size() > MAX_LINKS) {
      throw new MalformedGrantException(
          Malformation.VALUE,
          path,
          "a chain has 1 to " + MAX_LINKS + " links, got " + items.size());
    }
    List<SignedGrant> links = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      links.add(SignedGrant.fromCbor(items.get(i), path + "[" + i + "]"));
    }
    return new GrantChain(links);
  }
}
