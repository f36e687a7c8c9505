package dev.ration.server.tls;

import dev.ration.server.config.TlsOptions;

/** Every test of {@link TlsNodeTest} against a node told {@code tls.provider: jdk}. */
class TlsNodeJdkProviderTest extends TlsNodeTest {
  @Override
  TlsOptions.Provider provider() {
    return TlsOptions.Provider.JDK;
  }

  @Override
  String expectedProvider() {
    return "jdk";
  }
}
