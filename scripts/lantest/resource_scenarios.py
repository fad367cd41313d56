"""Resources: a full disk, a flooding peer."""


class ResourceScenarios:
    """Mixed into the harness; each method returns its figure or raises Failure."""
