"""The service's wire: typed models, the HTTP layer, errors and the task client."""
