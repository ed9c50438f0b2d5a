"""The ledger in the admin: read-only. Money moves only through ledger.postings."""

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from .models import Account, Leg, Posting, SettlementMark


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class LegInline(admin.TabularInline):
    model = Leg
    fields = ("account", "amount")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "club", "kind", "player", "session")
    list_filter = ("kind", "club")
    list_select_related = ("club", "player", "session")


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ("pk", "kind", "session", "hand", "memo", "created_at")
    list_filter = ("kind", "club")
    list_select_related = ("session", "hand__session")
    inlines = [LegInline]


@admin.register(SettlementMark)
class SettlementMarkAdmin(ReadOnlyAdmin):
    list_display = ("session", "payer", "payee", "amount", "paid_at", "paid_by")
    list_select_related = ("session", "payer", "payee", "paid_by")
