package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Revocation;

/** {@code POST /v1/mesh/revocations} (issue 13 item 4; SPEC.md 30 §11, 70). */
class RevocationEndpointTest {
  private final SigningKey issuer = Jcp.newKey();
  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  private GrantChain grant() throws Exception {
    Instant now = Instant.now();
    return Jcp.issueRoot(
        issuer,
        f.steward.identity(),
        5_000_000,
        now.minusSeconds(60),
        now.plus(Duration.ofHours(1)));
  }

  private Fixture.Answer serveOn(GrantChain chain, String prompt) throws Exception {
    ObjectNode body = Fixture.chat(prompt);
    body.putObject("metadata").put("fidelity_floor", "F1").put("joule_ceiling_uj", "200000");
    ServeRequest request = GrantedServeRequest.derive(body);
    body.put("jcp_presentation", Jcp.present(issuer, chain, request).toHex());
    return f.post("/v1/chat/completions", body);
  }

  private Fixture.Answer revoke(String hex) {
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("revocation", hex);
    return f.post("/v1/mesh/revocations", body);
  }

  @Test
  void issuersRevocation_isRecorded_andLaterPresentationsAreRefusedRevoked() throws Exception {
    GrantChain chain = grant();
    assertThat(serveOn(chain, "before").status()).isEqualTo(200);
    Revocation r = Revocation.sign(issuer, chain, Instant.now().minusSeconds(1));
    Fixture.Answer a = revoke(r.toHex());
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.json().get("revoked").asText()).isEqualTo(chain.leaf().id().hex());
    assertThat(a.json().get("recorded").asBoolean()).isTrue();
    assertThat(revoke(r.toHex()).json().get("recorded").asBoolean()).isFalse();
    Fixture.Answer refused = serveOn(chain, "after");
    assertThat(refused.status()).as(refused.body()).isEqualTo(403);
    assertThat(refused.json().get("error").get("code").asText()).isEqualTo("revoked");
  }

  @Test
  void forgedRevocation_is403BadSignature_andTheGrantStillServes() throws Exception {
    GrantChain chain = grant();
    Revocation genuine = Revocation.sign(issuer, chain, Instant.now());
    Revocation forged =
        Revocation.of(
            chain, genuine.revoker(), genuine.from().minusSeconds(3600), genuine.signature());
    Fixture.Answer a = revoke(forged.toHex());
    assertThat(a.status()).as(a.body()).isEqualTo(403);
    assertThat(a.json().get("error").get("code").asText()).isEqualTo("bad-signature");
    assertThat(serveOn(chain, "still granted").status()).isEqualTo(200);
  }

  @Test
  void revocationByANonIssuer_is403NotIssuer() throws Exception {
    GrantChain chain = grant();
    SigningKey stranger = Jcp.newKey();
    Instant at = Instant.ofEpochSecond(Instant.now().getEpochSecond());
    Revocation r =
        Revocation.of(
            chain,
            Jcp.identity(stranger),
            at,
            stranger.sign(Revocation.signedPayload(chain.leaf().id(), Jcp.identity(stranger), at)));
    Fixture.Answer a = revoke(r.toHex());
    assertThat(a.status()).as(a.body()).isEqualTo(403);
    assertThat(a.json().get("error").get("code").asText()).isEqualTo("not-issuer");
    assertThat(serveOn(chain, "still granted").status()).isEqualTo(200);
  }

  @Test
  void malformedRevocation_is400() {
    Fixture.Answer a = revoke("a1b2");
    assertThat(a.status()).as(a.body()).isEqualTo(400);
    assertThat(a.json().get("error").get("code").asText()).isEqualTo("malformed_revocation");
    Fixture.Answer missing = f.post("/v1/mesh/revocations", "{}");
    assertThat(missing.status()).isEqualTo(400);
    assertThat(missing.json().get("error").get("param").asText()).isEqualTo("revocation");
  }
}
