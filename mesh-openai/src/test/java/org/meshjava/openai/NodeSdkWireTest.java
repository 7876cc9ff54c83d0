package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.steward.Steward;

/**
 * Requests as the official OpenAI Node.js SDK (openai 6.x) puts them on the wire where it differs
 * from the Python one: it percent-encodes a path parameter (a model id) and posts an action such as
 * {@code responses.cancel} with no body and no {@code Content-Type}.
 */
class NodeSdkWireTest {
  /** Backend names as operators write them: a Hugging Face repository id, a space, a percent. */
  private static final String SLASHED = "meta-llama/Llama-3.1-8B";

  private static final String ODD = "ft:gpt-4o:org::x y+z%";

  /** An id holding {@code ;} and {@code ,}, which the Node SDK sends unescaped. */
  private static final String SEMI = "ft:model;v=2,b";

  private final Fixture f =
      new Fixture(
          null,
          s ->
              s.backend(backend(SLASHED, "llama"))
                  .backend(backend(ODD, "ft"))
                  .backend(backend(SEMI, "semi")),
          b -> {});

  @AfterEach
  void close() {
    f.close();
  }

  private static ReferenceEngine backend(String name, String recipe) {
    return ReferenceEngine.builder()
        .name(name)
        .recipe(Recipe.of(recipe))
        .fidelity(Fidelity.F1)
        .costProfile(CostProfile.perToken(40))
        .workPerToken(1)
        .build();
  }

  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9\\-._~!$&'()*+,;=:@]+");

  /**
   * The Node SDK's {@code encodeURIPath}: a run of characters outside RFC 3986's unreserved,
   * sub-delims, {@code :} and {@code @} goes through {@code encodeURIComponent} (UTF-8, {@code
   * %XX}; a space is {@code %20}, never {@code +}).
   */
  private static String nodeEncodeUriPath(String s) {
    Matcher m = UNSAFE.matcher(s);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out,
          Matcher.quoteReplacement(
              URLEncoder.encode(m.group(), StandardCharsets.UTF_8).replace("+", "%20")));
    }
    return m.appendTail(out).toString();
  }

  @Test
  void modelsRetrieve_findsEveryListedId_asTheNodeSdkEncodesIt() {
    JsonNode list = f.get("/v1/models").json().get("data");
    assertThat(list.findValuesAsText("id")).contains(SLASHED, ODD, SEMI);
    for (JsonNode m : list) {
      String id = m.get("id").asText();
      Fixture.Answer one = f.get("/v1/models/" + nodeEncodeUriPath(id));
      assertThat(one.status()).as(id + ": " + one.body()).isEqualTo(200);
      assertThat(one.json()).as(id).isEqualTo(m);
    }
    assertThat(nodeEncodeUriPath(SLASHED)).isEqualTo("meta-llama%2FLlama-3.1-8B");
    assertThat(nodeEncodeUriPath(ODD)).isEqualTo("ft:gpt-4o:org::x%20y+z%25");
  }

  /**
   * {@code client.models.retrieve("ft:model;v=2,b")} as openai 6.49.0 and 7.60.0 send it (captured
   * by sdk-check's {@code --dump-requests}): the {@code ;} is left raw. It was refused 404 {@code
   * not_found} as a path parameter, so a listed model could not be retrieved.
   */
  @Test
  void modelsRetrieve_ofAnIdHoldingASemicolon_asTheNodeSdkSendsIt_isFound() {
    assertThat(nodeEncodeUriPath(SEMI)).isEqualTo("ft:model;v=2,b");
    Fixture.Answer one = f.get("/v1/models/ft:model;v=2,b");
    assertThat(one.status()).as(one.body()).isEqualTo(200);
    assertThat(one.json().get("id").asText()).isEqualTo(SEMI);
    // Read as written, never with the ';…' stripped: no other model is served under it.
    JsonNode e = f.get("/v1/models/ft:model;v=3").error(404, "model_not_found");
    assertThat(e.get("message").asText()).contains("`ft:model;v=3`");
    // Elsewhere a ';' is still a parameter no path takes.
    f.get("/v1/models;x/" + nodeEncodeUriPath(SEMI)).error(404, "not_found");
    f.get("/v1/mesh/steward;x").error(404, "not_found");
  }

  /**
   * A backslash reaches the server as {@code %5C} from both SDKs and is refused 400 as a suspicious
   * path character, and {@code ..} is a dot segment, refused too, so a backend so named would be
   * listed but never retrieved: the server refuses to be built over it, naming it (a receipt may
   * still name such a backend).
   */
  @Test
  void aBackendNameNoRetrieveCanReach_isRefusedWhenTheServerIsBuilt_namingIt() {
    assertThat(f.get("/v1/models/" + nodeEncodeUriPath("org\\m")).status()).isEqualTo(400);
    try (Steward s =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(backend("org\\model", "bs"))
            .build()) {
      assertThatThrownBy(() -> OpenAiServer.builder(s).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("backend 'org\\model' holds a backslash")
          .hasMessageContaining("rename");
    }
    assertThat(f.get("/v1/models/..").status()).isEqualTo(400);
    try (Steward s =
        Steward.ephemeral().meter(new EstimatorMeter()).backend(backend("..", "dots")).build()) {
      assertThatThrownBy(() -> OpenAiServer.builder(s).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("backend '..' is a dot segment");
    }
  }

  @Test
  void modelsRetrieve_ofAnUnknownEncodedId_is404NamingItDecoded() {
    JsonNode e =
        f.get("/v1/models/" + nodeEncodeUriPath("org/no such")).error(404, "model_not_found");
    assertThat(e.get("message").asText()).contains("`org/no such`");
    // A path that is not a model id is still no endpoint.
    f.get("/v1/chat%2Fcompletions").error(404, "not_found");
  }

  @Test
  void aBodylessPostToNoEndpoint_is404_not415() {
    // responses.cancel: POST /v1/responses/{id}/cancel, no body, no Content-Type.
    JsonNode e =
        f.send(
                HttpRequest.newBuilder(f.uri("/v1/responses/resp_abc/cancel"))
                    .POST(HttpRequest.BodyPublishers.noBody()))
            .error(404, "not_found");
    assertThat(e.get("message").asText()).contains("/v1/responses/resp_abc/cancel");
    // A bodyless POST to an endpoint that reads a body is still told what to send.
    f.send(HttpRequest.newBuilder(f.uri("/v1/responses")).POST(HttpRequest.BodyPublishers.noBody()))
        .error(415, "unsupported_media_type");
    // And a GET-only endpoint still names its method.
    f.send(
            HttpRequest.newBuilder(f.uri("/v1/models/" + nodeEncodeUriPath(SLASHED)))
                .POST(HttpRequest.BodyPublishers.noBody()))
        .error(405, "method_not_allowed");
  }
}
