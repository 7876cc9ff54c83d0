package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.crypto.SigningKey;

/** The signed revocation statement (SPEC.md 30 §11): encoding, and who may sign one. */
class RevocationStatementTest {
  static final Instant T = Instant.parse("2026-11-29T00:00:00Z");

  final SigningKey org = SigningKey.generate();
  final SigningKey holder = SigningKey.generate();
  final SigningKey steward = SigningKey.generate();

  GrantChain chain() throws Exception {
    GrantChain root = Jcp.issueRoot(org, Jcp.identity(holder), 1_000_000, T, T.plusSeconds(3600));
    return Jcp.delegate(holder, root, Jcp.identity(steward), 1_000);
  }

  @Test
  void signedStatement_roundTripsByteForByte_andVerifies() throws Exception {
    Revocation r = Revocation.sign(org, chain(), T.plusMillis(1500));
    assertThat(r.from()).isEqualTo(T.plusSeconds(1));
    Revocation back = Revocation.fromHex(r.toHex());
    assertThat(back).isEqualTo(r);
    assertThat(back.encode()).isEqualTo(r.encode());
    back.verify();
  }

  @Test
  void everyIssuerInTheChain_mayRevokeTheLeaf_butNotTheSubjectOfTheLeaf() throws Exception {
    GrantChain chain = chain();
    Revocation.sign(org, chain, T).verify();
    Revocation.sign(holder, chain, T).verify();
    assertThatThrownBy(() -> Revocation.sign(steward, chain, T))
        .isInstanceOfSatisfying(
            IssuanceException.class, e -> assertThat(e.getMessage()).contains("issued no link"));
  }

  @Test
  void aStatementOverABrokenChain_isRefused() throws Exception {
    GrantChain chain = chain();
    GrantChain other =
        Jcp.issueRoot(SigningKey.generate(), Jcp.identity(holder), 1_000, T, T.plusSeconds(60));
    GrantChain spliced = new GrantChain(java.util.List.of(other.root(), chain.leaf()));
    Revocation r =
        Revocation.of(
            spliced,
            Jcp.identity(holder),
            T,
            holder.sign(Revocation.signedPayload(spliced.leaf().id(), Jcp.identity(holder), T)));
    assertThatThrownBy(r::verify)
        .isInstanceOfSatisfying(
            GrantRefusedException.class,
            e -> assertThat(e.label()).isEqualTo(DenialLabel.BROKEN_CHAIN));
  }

  @Test
  void bytesThatAreNotAStatement_areMalformed() throws Exception {
    Revocation r = Revocation.sign(org, chain(), T);
    assertThatThrownBy(() -> Revocation.fromHex(r.toHex() + "00"))
        .isInstanceOf(MalformedGrantException.class);
    assertThatThrownBy(() -> Revocation.fromHex(chain().toHex()))
        .isInstanceOf(MalformedGrantException.class);
    assertThatThrownBy(() -> Revocation.fromHex("zz")).isInstanceOf(MalformedGrantException.class);
  }

  @Test
  void aStatementWhoseSignatureDoesNotCoverIt_isRefusedAsBadSignature() throws Exception {
    GrantChain chain = chain();
    Revocation signed = Revocation.sign(org, chain, T);
    // The same signature over another time, and a signature of zeros.
    for (Revocation forged :
        java.util.List.of(
            Revocation.of(chain, Jcp.identity(org), T.plusSeconds(1), signed.signature()),
            Revocation.of(chain, Jcp.identity(org), T, new byte[64]))) {
      assertThatThrownBy(forged::verify)
          .isInstanceOfSatisfying(
              GrantRefusedException.class,
              e -> {
                assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
                assertThat(e.link()).isEmpty();
                assertThat(e.reason())
                    .isEqualTo(
                        "the revocation of "
                            + forged.grantId()
                            + " is not signed by "
                            + forged.revoker());
              });
      assertThat(forged).isNotEqualTo(signed);
    }
  }

  @Test
  void aStatement_exposesWhatItSays_andIsNamedByTheHashOfItsBytes() throws Exception {
    GrantChain chain = chain();
    Revocation r = Revocation.sign(holder, chain, T);
    assertThat(r.chain()).isEqualTo(chain);
    assertThat(r.grantId()).isEqualTo(chain.leaf().id());
    assertThat(r.revoker()).isEqualTo(Jcp.identity(holder));
    assertThat(r.signature()).hasSize(64);
    Jcp.identity(holder)
        .verificationKey()
        .verify(Revocation.signedPayload(r.grantId(), r.revoker(), T), r.signature());
    assertThat(r.id()).isEqualTo(ContentId.ofBytes(r.encode()));
  }

  @Test
  void revokedFrom_spansTheEpochToTheLastInstantJavaCanHold() throws Exception {
    GrantChain chain = chain();
    byte[] sig = new byte[64];
    Revocation atEpoch = Revocation.of(chain, Jcp.identity(org), Instant.EPOCH, sig);
    assertThat(Revocation.decode(atEpoch.encode())).isEqualTo(atEpoch);
    Instant last = Instant.ofEpochSecond(Instant.MAX.getEpochSecond());
    Revocation atEnd = Revocation.of(chain, Jcp.identity(org), last, sig);
    assertThat(Revocation.decode(atEnd.encode()).from()).isEqualTo(last);
    var beyond =
        EncodingTest.with(
            EncodingTest.without(atEnd.toCbor(), "revoked_from"),
            "revoked_from",
            new CborInt(Instant.MAX.getEpochSecond() + 1));
    assertThatThrownBy(() -> Revocation.decode(beyond.encode()))
        .isInstanceOfSatisfying(
            MalformedGrantException.class,
            e -> {
              assertThat(e.malformation()).isEqualTo(Malformation.VALUE);
              assertThat(e.field()).isEqualTo("revocation.revoked_from");
            });
    assertThatThrownBy(
            () -> Revocation.of(chain, Jcp.identity(org), Instant.EPOCH.minusSeconds(1), sig))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
