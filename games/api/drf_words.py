"""The sentences Django REST framework itself says to an API client, in this project's
catalogues (issue 19).

DRF marks its field errors ("This field is required.") and its refusals ("Authentication
credentials were not provided.") for translation, but its own catalogues have no Albanian
or Sundanese, and its Finnish lacks some ("Must be a valid boolean."). Django looks a
message up in LOCALE_PATHS before an app's catalogue, so naming DRF's msgids here puts them
in locale/*/django.po, where every shipped language translates them with the project's
words; nothing is patched at run time.

The texts must be DRF's exactly: tests/api/test_languages.py walks every serializer of the
API and fails on an error message some language does not translate (a DRF upgrade that
rewords one shows there). Nothing imports this module; it is only read by makemessages.
"""

from django.utils.translation import gettext_noop

DRF_FIELD_ERRORS = [
    gettext_noop("This field is required."),
    gettext_noop("This field may not be null."),
    gettext_noop("Not a valid string."),
    gettext_noop("This field may not be blank."),
    gettext_noop("Ensure this field has no more than {max_length} characters."),
    gettext_noop("Ensure this field has at least {min_length} characters."),
    gettext_noop("A valid integer is required."),
    gettext_noop("Ensure this value is less than or equal to {max_value}."),
    gettext_noop("Ensure this value is greater than or equal to {min_value}."),
    gettext_noop("String value too large."),
    gettext_noop("Must be a valid boolean."),
    gettext_noop('"{input}" is not a valid choice.'),
    gettext_noop('Expected a list of items but got type "{input_type}".'),
    gettext_noop("This list may not be empty."),
    gettext_noop("Ensure this field has at least {min_length} elements."),
    gettext_noop("Ensure this field has no more than {max_length} elements."),
    gettext_noop('Expected a dictionary of items but got type "{input_type}".'),
    gettext_noop("This dictionary may not be empty."),
    gettext_noop("Value must be valid JSON."),
    gettext_noop("Invalid data. Expected a dictionary, but got {datatype}."),
    gettext_noop("Enter a valid URL."),
    gettext_noop("Datetime has wrong format. Use one of these formats instead: {format}."),
    gettext_noop("Expected a datetime but got a date."),
    gettext_noop('Invalid datetime for the timezone "{timezone}".'),
    gettext_noop("Datetime value out of range."),
]

# APIException.default_detail of the refusals an API view can meet.
DRF_REFUSALS = [
    gettext_noop("Invalid input."),
    gettext_noop("Malformed request."),
    gettext_noop("Incorrect authentication credentials."),
    gettext_noop("Authentication credentials were not provided."),
    gettext_noop("You do not have permission to perform this action."),
    gettext_noop('Method "{method}" not allowed.'),
    gettext_noop("Could not satisfy the request Accept header."),
    gettext_noop('Unsupported media type "{media_type}" in request.'),
    gettext_noop("Request was throttled."),
    gettext_noop("Expected available in {wait} second."),
    gettext_noop("Expected available in {wait} seconds."),
]
