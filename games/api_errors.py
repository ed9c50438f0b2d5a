"""API errors as application/problem+json (filled in by the REST API feature)."""

from rest_framework.views import exception_handler


def problem_exception_handler(exc, context):
    return exception_handler(exc, context)
