// Placeholder until the P2PTransport module lands.
enum P2PTransportPlaceholder {}
