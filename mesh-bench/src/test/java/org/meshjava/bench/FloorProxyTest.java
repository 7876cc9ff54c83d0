package org.meshjava.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The benchmark's bare proxy forwards to the upstream and answers with its reply, padded. */
class FloorProxyTest {
  @ParameterizedTest
  @CsvSource({
    "false,false,false,false",
    "true,false,false,false",
    "false,true,false,false",
    "true,true,false,false",
    "false,false,true,false",
    "true,false,true,false",
    "false,false,false,true",
    "true,false,false,true"
  })
  void floor_forwardsTheBodyAndAnswersTheUpstreamsReply_paddedToAProxiedReplysLength(
      boolean sign, boolean inline, boolean virtual, boolean noReserved) throws Exception {
    Server upstream = HttpServeBenchmark.fakeUpstream();
    Server floor = null;
    try {
      int upstreamPort = ((ServerConnector) upstream.getConnectors()[0]).getLocalPort();
      floor = FloorProxy.start(upstreamPort, sign, inline, virtual, noReserved);
      int port = ((ServerConnector) floor.getConnectors()[0]).getLocalPort();
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> reply =
            client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/x"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"auto\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(reply.statusCode()).isEqualTo(200);
        assertThat(reply.body()).hasSize(FloorProxy.REPLY_BYTES);
        assertThat(reply.body().strip())
            .isEqualTo(new String(HttpServeBenchmark.UPSTREAM_REPLY, StandardCharsets.UTF_8));
      }
    } finally {
      if (floor != null) {
        floor.stop();
      }
      upstream.stop();
    }
  }
}
